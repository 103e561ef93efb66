// A branch's escalation ladder (issue #18, decision 0032): for a ready ticket nobody acknowledged,
// which channels each successive reminder uses and when it falls due. Stored in the branch
// settings; without one, the branch's reminder settings make the ladder they always made (every
// channel, SMS as the fallback, the boards calling out), so nothing changes for a branch that
// never sets one.

import type { LadderStep } from '../core/branch-settings.ts';
import { LADDER_CHANNELS } from '../core/channel-catalogue.ts';

export { LADDER_CHANNELS };
export const LADDER_SMS = ['never', 'fallback', 'always'] as const satisfies readonly LadderStep['sms'][];

/** Bounded so a ladder can never text a customer without end; the old `reminder_count` maximum. */
export const MAX_LADDER_STEPS = 5;
/** The old minimum `reminder_delay_seconds`, kept between any two rings of a ladder. */
export const MIN_STEP_GAP_SECONDS = 30;
export const MAX_LADDER_SECONDS = 7200;

/** What the reminder settings always meant, as a ladder. */
export function ladderFromReminders(delaySeconds: number, count: number): LadderStep[] {
  return Array.from({ length: Math.max(0, count) }, (_, i) => ({
    after_seconds: delaySeconds * (i + 1),
    channels: [...LADDER_CHANNELS],
    sms: 'fallback',
    call_out: true,
  }));
}

/** The first fault of a ladder, with the JSON pointer (under the ladder) of what is wrong; null when sound. */
export function ladderFault(steps: readonly LadderStep[]): { pointer: string; detail: string } | null {
  if (steps.length > MAX_LADDER_STEPS) return { pointer: '', detail: `A ladder has at most ${MAX_LADDER_STEPS} steps.` };
  let previous = 0;
  for (const [i, s] of steps.entries()) {
    if (s.after_seconds < previous + MIN_STEP_GAP_SECONDS) {
      return {
        pointer: `/${i}/after_seconds`,
        detail:
          i === 0
            ? `The first step comes at least ${MIN_STEP_GAP_SECONDS} s after the ready.`
            : `Each step comes at least ${MIN_STEP_GAP_SECONDS} s after the one before it (${previous} s).`,
      };
    }
    if (s.after_seconds > MAX_LADDER_SECONDS)
      return { pointer: `/${i}/after_seconds`, detail: `A ladder ends within ${MAX_LADDER_SECONDS} s of the ready.` };
    if (new Set(s.channels).size !== s.channels.length) return { pointer: `/${i}/channels`, detail: 'A channel is named twice.' };
    if (s.channels.length === 0 && s.sms === 'never' && !s.call_out)
      return { pointer: `/${i}`, detail: "A step uses at least one channel, SMS or the boards' call-out." };
    previous = s.after_seconds;
  }
  return null;
}

/** The index of the first step that may use a paid channel (it needs a plan and a branch with SMS on); -1 when none. */
export const firstTextingStep = (steps: readonly LadderStep[]): number => steps.findIndex((s) => s.sms !== 'never');
