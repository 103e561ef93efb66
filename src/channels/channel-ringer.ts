// The real Ringer: asks the ring policy which channels to try, runs them under one deadline, and
// answers only with what really happened (PRODUCT.md §2).
//
// - Stage 1 (push, page, display) runs in parallel; stage 2 (SMS) only if stage 1 reached the
//   customer through neither push nor page. If the deadline cuts off push or page, whether SMS is
//   needed is not known yet: the SMS decision is left to the outbox job.
// - A channel still running at the deadline makes the outcome `complete: false`; its send goes on
//   in the background and records its outcome, and the ring's outbox job asks the channels again
//   later. Asking again never delivers twice: every channel sends at most once per ring and target
//   (send-once.ts for push and SMS; the confirmation record for page and display) and otherwise
//   returns what it recorded.
import type { FastifyBaseLogger as Logger } from 'fastify';
import type { Channel, ChannelAttempt, ChannelName, RingOutcome, RingRequest, Ringer } from './ringer.ts';
import type { Db } from '../store/db.ts';
import { fromJson, one } from '../store/db.ts';
import { withDefaults } from '../domain/branch-settings.ts';
import type { Plan } from '../store/tenancy.ts';
import { countPushSubscriptions } from '../store/push-subscriptions.ts';
import { planRing, smsNeeded, summarizeRing, type RingFacts } from '../domain/ring-policy.ts';

export type RingerDeps = { db: Db; log: Logger };

const CUT = Symbol('cut by the deadline');

export class ChannelRinger implements Ringer {
  private readonly deps: RingerDeps;
  private readonly channels: Map<ChannelName, Channel>;

  constructor(deps: RingerDeps, channels: readonly Channel[]) {
    this.deps = deps;
    this.channels = new Map(channels.map((c) => [c.name, c]));
  }

  /** Adds a channel after construction (the composition root builds hubs after the ringer). */
  add(channel: Channel): void {
    this.channels.set(channel.name, channel);
  }

  async ring(request: RingRequest, deadlineMs: number): Promise<RingOutcome> {
    const plan = planRing(await this.facts(request));
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), deadlineMs);
    try {
      const { signal } = controller;
      const stageOne = await Promise.all(plan.fanOut.map((name) => this.attempt(name, request, signal)));
      const attempts = stageOne.filter((a): a is ChannelAttempt => a !== CUT);
      let complete = attempts.length === stageOne.length;
      // SMS costs money and is only for a customer push and page did not reach: if either is
      // still undecided, so is SMS.
      const freeUndecided = plan.fanOut.some((name, i) => stageOne[i] === CUT && (name === 'push' || name === 'page'));
      if (!freeUndecided && smsNeeded(plan, attempts)) {
        const sms = signal.aborted ? CUT : await this.attempt('sms', request, signal);
        if (sms === CUT) complete = false;
        else attempts.push(sms);
      }
      return { ...summarizeRing(attempts), attempts, complete };
    } finally {
      clearTimeout(timer);
    }
  }

  private async attempt(name: ChannelName, request: RingRequest, signal: AbortSignal): Promise<ChannelAttempt | typeof CUT> {
    const channel = this.channels.get(name)!;
    // Listening before the channel starts makes a channel that gives up on the same abort count
    // as cut off (so the job asks it again) rather than as a final "not delivered".
    const cut = new Promise<typeof CUT>((resolve) => {
      if (signal.aborted) resolve(CUT);
      else signal.addEventListener('abort', () => resolve(CUT), { once: true });
    });
    const run = channel.ring(request, signal).catch((err: unknown): ChannelAttempt => {
      this.deps.log.warn({ channel: name, err: (err as Error).message }, 'ring channel failed');
      return { channel: name, delivered: false, detail: 'error' };
    });
    return Promise.race([run, cut]);
  }

  private async facts(request: RingRequest): Promise<RingFacts> {
    const { ticket } = request;
    const { db } = this.deps;
    const row = await one<{ plan: Plan; settings: string }>(
      db,
      'SELECT a.plan AS plan, b.settings AS settings FROM branches b JOIN accounts a ON a.id = b.account_id WHERE b.id = $1',
      [ticket.branchId],
    );
    const settings = withDefaults(fromJson(row?.settings, {}));
    const configured = new Set(this.channels.keys());
    const pushSubscriptions = configured.has('push') ? await countPushSubscriptions(db, ticket.branchId, ticket.mode, ticket.id) : 0;
    return {
      configured,
      ticketReady: ticket.status === 'ready',
      pageOpen: null,
      pushSubscriptions,
      phone: ticket.customerPhone !== null,
      plan: row?.plan ?? 'free',
      smsEnabled: settings.sms_enabled,
      livemode: request.livemode,
    };
  }
}
