// The real Ringer: asks the ring policy which channels to try, runs them under one deadline, and
// answers only with what really happened (PRODUCT.md §2).
//
// - Stage 1 (push, page, display) runs in parallel; stage 2 (SMS) only if stage 1 reached the
//   customer through neither push nor page. If the deadline cuts off push or page, whether SMS is
//   needed is not known yet: the SMS decision is left to the outbox job.
// - A channel still undecided at the deadline makes the outcome `complete: false`; its send goes on
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

const CUT: unique symbol = Symbol('cut by the deadline');
/** Share of the deadline for stage 1 when an SMS may have to follow. */
const STAGE_ONE_SHARE = 0.6;
/** How long a channel told "time is up" has to give its own answer. */
const ABORT_GRACE_MS = 25;

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
    const started = performance.now();
    // When SMS may follow, stage 1 gets part of the deadline, so that a page that never confirms
    // (a locked phone keeps its connection open) still leaves time to send the SMS in-line.
    const stageOneMs = plan.sms.send ? Math.floor(deadlineMs * STAGE_ONE_SHARE) : deadlineMs;
    const stageOne = await this.stage(plan.fanOut, request, stageOneMs);
    const attempts = stageOne.filter((a): a is ChannelAttempt => a !== CUT);
    let complete = attempts.length === stageOne.length;
    // SMS costs money and is only for a customer push and page did not reach: if either is still
    // undecided, so is SMS (the ring's job decides it).
    const freeUndecided = plan.fanOut.some((name, i) => stageOne[i] === CUT && (name === 'push' || name === 'page'));
    if (!freeUndecided && smsNeeded(plan, attempts)) {
      const left = deadlineMs - (performance.now() - started);
      const sms = left > 0 ? (await this.stage(['sms'], request, left))[0] : CUT;
      if (sms === undefined || sms === CUT) complete = false;
      else attempts.push(sms);
    }
    return { ...summarizeRing(attempts), attempts, complete };
  }

  /**
   * Runs channels in parallel until all answered or `ms` passed. At the deadline each channel is
   * told (its AbortSignal) and has a moment to give its answer ("no confirmation in time" is an
   * answer); one that does not answer, or answers `pending` (a send still in flight), is CUT.
   */
  private async stage(names: readonly ChannelName[], request: RingRequest, ms: number): Promise<Array<ChannelAttempt | typeof CUT>> {
    const controller = new AbortController();
    const results: Array<ChannelAttempt | undefined> = names.map(() => undefined);
    const all = Promise.all(names.map((name, i) => this.run(name, request, controller.signal).then((a) => {
      results[i] = a;
    })));
    let timer: NodeJS.Timeout | undefined;
    const timeUp = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        controller.abort();
        timer = setTimeout(resolve, ABORT_GRACE_MS);
      }, Math.max(0, ms));
    });
    try {
      await Promise.race([all, timeUp]);
    } finally {
      clearTimeout(timer);
    }
    return results.map((r) => (r === undefined || r.pending === true ? CUT : r));
  }

  private run(name: ChannelName, request: RingRequest, signal: AbortSignal): Promise<ChannelAttempt> {
    return this.channels.get(name)!.ring(request, signal).catch((err: unknown): ChannelAttempt => {
      this.deps.log.warn({ channel: name, err: (err as Error).message }, 'ring channel failed');
      return { channel: name, delivered: false, detail: 'error' };
    });
  }

  private async facts(request: RingRequest): Promise<RingFacts> {
    const { ticket } = request;
    const { db } = this.deps;
    const configured = new Set(this.channels.keys());
    // Both reads at once: they sit between the ready commit and the page being rung.
    const [row, pushSubscriptions] = await Promise.all([
      one<{ plan: Plan; settings: string }>(
        db,
        'SELECT a.plan AS plan, b.settings AS settings FROM branches b JOIN accounts a ON a.id = b.account_id WHERE b.id = $1',
        [ticket.branchId],
      ),
      configured.has('push') ? countPushSubscriptions(db, ticket.branchId, ticket.mode, ticket.id) : Promise.resolve(0),
    ]);
    const settings = withDefaults(fromJson(row?.settings, {}));
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
