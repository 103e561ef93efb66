// The real Ringer: asks the ring policy which channels to try, runs them under one deadline, and
// answers only with what really happened (PRODUCT.md §2).
//
// - Stage 1 (the catalogue's free channels: push, wallet, page, display) runs in parallel; stage 2
//   (the paid ones: SMS) only if stage 1 reached the customer through no free channel. If the
//   deadline cuts off push or page, whether a paid channel is needed is not known yet: the decision
//   is left to the outbox job. A ring whose channels say `always` sends the paid ones with stage 1.
// - A channel still undecided at the deadline makes the outcome `complete: false`; its send goes on
//   in the background and records its outcome, and the ring's outbox job asks the channels again
//   later. Asking again never delivers twice: every channel sends at most once per ring and target
//   (send-once.ts for push and SMS; the confirmation record for page and display) and otherwise
//   returns what it recorded.
import type { FastifyBaseLogger as Logger } from 'fastify';
import type { Channel, QuietCheck } from './ringer.ts';
import type { ChannelAttempt, ChannelName, FirstAttempt, RingOutcome, RingRequest, Ringer, RingTarget } from '../core/ring.ts';
import type { Db } from '../core/db.ts';
import type { Plan } from '../core/tenancy.ts';
import { DEFAULT_SETTINGS } from '../domain/branch-settings.ts';
import { countPushSubscriptions } from '../store/push-subscriptions.ts';
import { readRingBranch } from '../store/rings.ts';
import { decidesFallback, planRing, smsNeeded, summarizeRing, type PaidSwitches, type RingFacts } from '../domain/ring-policy.ts';
import type { BranchSettings } from '../core/branch-settings.ts';
import { PAID_SWITCHES } from '../core/channel-catalogue.ts';
import type { Attributes } from '@opentelemetry/api';
import { inSpan } from '../telemetry/tracing.ts';

export type RingerDeps = { db: Db; log: Logger };

/** What the policy needs beyond the ticket: handed over by the first attempt, or read. */
type Known = { plan: Plan; pushSubscriptions: number; switches: PaidSwitches };
const known = (first: FirstAttempt): Known => ({
  plan: first.plan,
  pushSubscriptions: first.pushSubscriptions,
  switches: switchesOf(first.branch.settings),
});

/** The branch's paid channels on or off, each by its catalogue's `branchSwitch`. */
function switchesOf(settings: BranchSettings): PaidSwitches {
  return Object.fromEntries(PAID_SWITCHES.map((s) => [`${s.channel}Enabled`, settings[s.setting] === true])) as PaidSwitches;
}

const CUT: unique symbol = Symbol('cut by the deadline');
/** Cut while a push or paid send was still in flight or claimed by another attempt (see RingOutcome.sending). */
const SENDING: unique symbol = Symbol('cut while sending');
type Cut = typeof CUT | typeof SENDING;
const isCut = (r: ChannelAttempt | Cut): r is Cut => r === CUT || r === SENDING;
const attemptAttributes = (a: ChannelAttempt): Attributes => ({
  'readybell.ring.outcome': a.pending === true ? 'pending' : a.delivered === null ? 'unknown' : a.delivered ? 'delivered' : 'not_delivered',
  'readybell.ring.detail': a.detail ?? '',
});
/** Share of the deadline for stage 1 when a paid channel may have to follow. */
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

  /**
   * Asks the channels' look-aheads at once (before the ring's transaction). The check it resolves
   * to answers the first attempt's whole outcome, as `ring` would, when every channel the policy
   * picks answered without anyone to try and no paid channel is to be sent; otherwise null.
   */
  async lookAhead(target: RingTarget): Promise<(request: RingRequest) => RingOutcome | null> {
    const checks = new Map<ChannelName, QuietCheck>();
    await Promise.all(
      [...this.channels.values()].map(async (channel) => {
        if (channel.lookAhead === undefined) return;
        try {
          checks.set(channel.name, await channel.lookAhead(target));
        } catch (err) {
          // Without its check the channel counts as having someone to try: the ring goes the usual way.
          this.deps.log.warn({ channel: channel.name, err: (err as Error).message }, 'ring look-ahead failed');
        }
      }),
    );
    return (request) => {
      if (request.first === undefined) return null;
      const plan = planRing(this.factsFrom(request, known(request.first)), request.channels);
      const attempts: ChannelAttempt[] = [];
      for (const name of plan.fanOut) {
        const attempt = checks.get(name)?.(request) ?? null;
        if (attempt === null) return null;
        attempts.push(attempt);
      }
      if (smsNeeded(plan, attempts)) return null;
      return { ...summarizeRing(attempts), attempts, complete: true };
    };
  }

  ring(request: RingRequest, deadlineMs: number): Promise<RingOutcome> {
    return inSpan(
      'ring',
      { 'readybell.ring.id': request.ringId, 'readybell.ring.reason': request.reason, 'readybell.ring.seq': request.seq },
      () => this.attempt(request, deadlineMs),
      {
        outcome: (o) => ({ 'readybell.ring.channel_used': o.channel_used, 'readybell.ring.complete': o.complete }),
      },
    );
  }

  private async attempt(request: RingRequest, deadlineMs: number): Promise<RingOutcome> {
    const plan = planRing(await this.facts(request), request.channels);
    const started = performance.now();
    // Paid channels chosen whatever push and page do go out with them; as a fallback they wait for them.
    const paid: ChannelName[] = plan.sms.send ? plan.sms.channels : [];
    const alongside = plan.sms.send && plan.sms.alongside;
    const stageOneNames: ChannelName[] = alongside ? [...plan.fanOut, ...paid] : plan.fanOut;
    // When a paid channel may follow, stage 1 gets part of the deadline, so that a page that never
    // confirms (a locked phone keeps its connection open) still leaves time to send it in-line.
    const stageOneMs = plan.sms.send && !alongside ? Math.floor(deadlineMs * STAGE_ONE_SHARE) : deadlineMs;
    const stageOne = await this.stage(stageOneNames, request, stageOneMs);
    const answered = stageOne.filter((a): a is ChannelAttempt => !isCut(a));
    // Sent but not confirmed yet (a wallet pass not fetched yet): the ring's job asks again, and
    // its last try records what is known, without the flag (runRing's `final`).
    const attempts = answered.map(({ unconfirmed: _, ...a }) => a);
    let complete = attempts.length === stageOne.length && !answered.some((a) => a.unconfirmed === true);
    let sending = stageOne.includes(SENDING);
    // A paid channel costs money and is only for a customer no free channel reached: if one that
    // decides it is still undecided, so is the paid stage (the ring's job decides it).
    const freeUndecided =
      plan.fanOut.some((name, i) => isCut(stageOne[i]!) && decidesFallback(name)) || answered.some((a) => a.unconfirmed === true);
    if (!alongside && !freeUndecided && smsNeeded(plan, attempts)) {
      const left = deadlineMs - (performance.now() - started);
      const stageTwo = left > 0 ? await this.stage(paid, request, left) : paid.map((): Cut => CUT);
      for (const answer of stageTwo) {
        if (isCut(answer)) {
          complete = false;
          sending ||= answer === SENDING;
        } else {
          attempts.push(answer);
        }
      }
    }
    return { ...summarizeRing(attempts), attempts, complete, ...(sending ? { sending } : {}) };
  }

  /**
   * Runs channels in parallel until all answered or `ms` passed. At the deadline each channel is
   * told (its AbortSignal) and has a moment to give its answer ("no confirmation in time" is an
   * answer); one that does not answer is CUT, one that answers `pending` (a send still in
   * flight) is SENDING.
   */
  private async stage(names: readonly ChannelName[], request: RingRequest, ms: number): Promise<Array<ChannelAttempt | Cut>> {
    const controller = new AbortController();
    const results: Array<ChannelAttempt | undefined> = names.map(() => undefined);
    const all = Promise.all(
      names.map((name, i) =>
        this.run(name, request, controller.signal).then((a) => {
          results[i] = a;
        }),
      ),
    );
    let timer: NodeJS.Timeout | undefined;
    const timeUp = new Promise<void>((resolve) => {
      timer = setTimeout(
        () => {
          controller.abort();
          timer = setTimeout(resolve, ABORT_GRACE_MS);
        },
        Math.max(0, ms),
      );
    });
    try {
      await Promise.race([all, timeUp]);
    } finally {
      clearTimeout(timer);
    }
    return results.map((r) => (r === undefined ? CUT : r.pending === true ? SENDING : r));
  }

  private run(name: ChannelName, request: RingRequest, signal: AbortSignal): Promise<ChannelAttempt> {
    const attempt = (): Promise<ChannelAttempt> =>
      this.channels
        .get(name)!
        .ring(request, signal)
        .catch((err: unknown): ChannelAttempt => {
          this.deps.log.warn({ channel: name, err: (err as Error).message }, 'ring channel failed');
          return { channel: name, delivered: false, detail: 'error' };
        });
    return inSpan('ring.channel', { 'readybell.ring.channel': name }, attempt, { outcome: attemptAttributes });
  }

  private async facts(request: RingRequest): Promise<RingFacts> {
    const { first } = request;
    return this.factsFrom(request, first === undefined ? await this.read(request, this.channels.has('push')) : known(first));
  }

  private factsFrom(request: RingRequest, known: Known): RingFacts {
    const { ticket } = request;
    return {
      configured: new Set(this.channels.keys()),
      ticketReady: ticket.status === 'ready',
      pageOpen: null,
      pushSubscriptions: known.pushSubscriptions,
      phone: ticket.customerPhone !== null,
      plan: known.plan,
      ...known.switches,
      livemode: request.livemode,
    };
  }

  /** What the first attempt is handed (FirstAttempt), read for a ring asked about again. */
  private async read(request: RingRequest, push: boolean): Promise<Known> {
    const { ticket } = request;
    const { db } = this.deps;
    const [branch, pushSubscriptions] = await Promise.all([
      readRingBranch(db, ticket.branchId),
      push ? countPushSubscriptions(db, ticket.branchId, ticket.mode, ticket.id) : Promise.resolve(0),
    ]);
    return { plan: branch?.plan ?? 'free', pushSubscriptions, switches: switchesOf(branch?.settings ?? DEFAULT_SETTINGS) };
  }
}
