// Modules' schedules (core/module.ts) as jobs in the job queue, not timers beside it: each period
// is one job keyed by its slot (`<kind>:<slot>`), so however many nodes run, one of them runs it;
// each run enqueues the next slot, and a node that starts enqueues a run for itself at once (a node
// restarted more often than the period still does the work) and the next slot, should the chain
// have broken (a store that was down when a run tried to enqueue its successor).
import type { Services } from '../core/ctx.ts';
import type { JobRegistry } from '../core/job-registry.ts';
import type { Schedule, SchedulePayload } from '../core/module.ts';
import { randomToken } from '../domain/ids.ts';
import { enqueueJob, newJob } from '../store/outbox.ts';

const slotOf = (s: Schedule, at: number): number => Math.floor(at / s.everyMs);

async function enqueue(services: Services, s: Schedule, payload: SchedulePayload, key: string, runAt: number): Promise<void> {
  const now = services.clock.now();
  await services.db.write((tx) => enqueueJob(tx, newJob(s.kind, key, payload, runAt, now)));
}

const enqueueSlot = (services: Services, s: Schedule, slot: number): Promise<void> =>
  enqueue(services, s, { slot }, `${s.kind.kind}:${slot}`, slot * s.everyMs);

/** Registers each schedule's job: its run, then the next slot's job. A failed run waits for the next slot. */
export function registerSchedules(registry: JobRegistry, schedules: readonly Schedule[]): void {
  for (const s of schedules)
    registry.set(s.kind, async (services, p) => {
      try {
        await s.run(services);
      } catch (err) {
        services.log.warn({ job: s.kind.kind, err: (err as Error).message }, 'scheduled job failed; it runs again at its next slot');
      }
      if (p.slot !== 'start') await enqueueSlot(services, s, p.slot + 1);
    });
}

/** A node's start: each schedule runs once now, and its next slot is enqueued (once, whichever node is first). */
export async function startSchedules(services: Services, schedules: readonly Schedule[]): Promise<void> {
  const now = services.clock.now();
  for (const s of schedules) {
    await enqueue(services, s, { slot: 'start' }, `${s.kind.kind}:start:${randomToken(8)}`, now);
    await enqueueSlot(services, s, slotOf(s, now) + 1);
  }
  services.jobs.wake();
}
