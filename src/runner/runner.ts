// The outbox worker: claims due jobs with a lease, runs their task, and marks them done or
// schedules a retry with backoff. A job whose worker died is claimed again when its lease ends,
// so nothing is lost; tasks are written to be safe to run twice (their effects are keyed). While a
// job runs its lease is renewed every third of JOB_LEASE_MS, so a job longer than the lease (a
// webhook's 10 s timeout against a 5 s lease) is never claimed by a second worker meanwhile.
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Services } from '../core/ctx.ts';
import type { Tx } from '../core/db.ts';
import {
  claimLaneJobs,
  FAILING_ENDPOINT_SLOTS,
  finishJob,
  releaseJobs,
  renewJobLeases,
  retryJob,
  type FairShares,
} from '../store/outbox.ts';
import type { ClaimedJob, JobLane, JobOwner } from '../core/jobs.ts';
import { inSpan, jobParent, markSpanFailed } from '../telemetry/tracing.ts';
import type { JobRegistry } from '../core/job-registry.ts';

/**
 * A lane's slots on this node (decision 0088): all but `reserve` are shared among the accounts
 * running jobs here, in equal parts that shrink as more accounts are busy; the `reserve` is taken
 * only by accounts running nothing here yet, one slot each, and never for an endpoint that is
 * failing (which gets FAILING_ENDPOINT_SLOTS, no more).
 */
export type LaneOptions = { slots: number; reserve: number };

export type RunnerOptions = { pollMs: number; leaseMs: number; lanes: Record<JobLane, LaneOptions> };

// Rings are short (a push, a text, a board message) and must never wait behind deliveries: their
// own 20 slots. A delivery may hold its slot for the whole 10 s timeout: 40 slots. One account
// alone may use a lane less its reserve (a café's one account is not held to a fraction); n busy
// accounts get 1/n of that each (8 tenants whose receivers never answer hold 4 webhook slots each),
// and an account with nothing running here finds a reserved slot at once, whatever the others do.
export const DEFAULT_RUNNER_OPTIONS: RunnerOptions = {
  pollMs: 250,
  leaseMs: 30_000,
  lanes: {
    ring: { slots: 20, reserve: 5 },
    webhook: { slots: 40, reserve: 8 },
  },
};

/** 5 s, 30 s, 2 min, 10 min, then every 30 min: for internal jobs (webhooks have their own schedule). */
export function backoffMs(attempts: number): number {
  const steps = [5_000, 30_000, 120_000, 600_000];
  return steps[Math.min(attempts - 1, steps.length - 1)] ?? 1_800_000;
}

const bump = (m: Map<string, number>, key: string | null, by: number): void => {
  if (key === null) return;
  const n = (m.get(key) ?? 0) + by;
  if (n <= 0) m.delete(key);
  else m.set(key, n);
};

/** One lane's jobs in flight on this node, counted by account and endpoint for the fair shares. */
class Lane {
  readonly name: JobLane;
  readonly opts: LaneOptions;
  readonly inflight = new Set<Promise<void>>();
  private readonly byAccount = new Map<string, number>();
  private readonly byEndpoint = new Map<string, number>();
  /** The last claim made progress or filled every free slot: more may be claimable now. */
  backlog = false;

  constructor(name: JobLane, opts: LaneOptions) {
    this.name = name;
    this.opts = opts;
  }

  free(): number {
    return this.opts.slots - this.inflight.size;
  }

  /** The slots shared among busy accounts: all but the reserve. */
  private pool(): number {
    return this.opts.slots - this.opts.reserve;
  }

  /** One account's share of the pool when `accounts` accounts run jobs here: equal parts, at least 1. */
  private shareOf(accounts: number): number {
    return Math.max(1, Math.floor(this.pool() / Math.max(1, accounts)));
  }

  /** Whether a job of this owner may start here now: the same rules as the claim's two steps (`shares`). */
  fits(owner: JobOwner, endpointFailing: boolean): boolean {
    if (this.free() <= 0) return false;
    const perEndpoint = endpointFailing ? FAILING_ENDPOINT_SLOTS : this.pool();
    if (owner.endpointId !== null && (this.byEndpoint.get(owner.endpointId) ?? 0) >= perEndpoint) return false;
    if (owner.accountId === null) return true;
    const busy = this.byAccount.get(owner.accountId) ?? 0;
    if (this.free() > this.opts.reserve) return busy === 0 || busy < this.shareOf(this.byAccount.size);
    return busy === 0 && !endpointFailing;
  }

  count(owner: JobOwner, by: 1 | -1): void {
    bump(this.byAccount, owner.accountId, by);
    bump(this.byEndpoint, owner.endpointId, by);
  }

  /**
   * The shares of a claim, counting `also` (claimed in the same transaction, not yet running) as
   * busy. `pool`: each busy account its part of the pool, an account running nothing here the part
   * it would have as one more. `reserve`: one slot to each account running nothing here, none to a
   * busy one or to a failing endpoint.
   */
  shares(step: 'pool' | 'reserve', also: readonly JobOwner[] = []): FairShares {
    const accounts = new Map(this.byAccount);
    const endpoints = new Map(this.byEndpoint);
    for (const job of also) {
      bump(accounts, job.accountId, 1);
      bump(endpoints, job.endpointId, 1);
    }
    const busy = { accounts: Object.fromEntries(accounts), endpoints: Object.fromEntries(endpoints) };
    if (step === 'reserve') return { perAccount: 0, perNewAccount: 1, perEndpoint: 1, failingEndpoint: 0, busy };
    return {
      perAccount: this.shareOf(accounts.size),
      perNewAccount: this.shareOf(accounts.size + 1),
      perEndpoint: this.pool(),
      failingEndpoint: FAILING_ENDPOINT_SLOTS,
      busy,
    };
  }
}

// Each lane runs its jobs concurrently up to its slots, and new ones are claimed while others are
// still running: one receiver that takes its full 10 s must not hold back every other job behind it.
export class JobRunner {
  readonly workerId = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  private readonly services: Services;
  private readonly tasks: JobRegistry;
  private readonly opts: RunnerOptions;
  private readonly lanes: Lane[];
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;
  private claiming: Promise<void> | null = null;
  private started = false;
  private stopped = false;
  /** A wake arrived during a claim: more may be due. */
  private again = false;
  private failedTick = false;
  /** The jobs running here now, by id: their leases are renewed while they run. */
  private readonly runningJobs = new Map<string, ClaimedJob>();
  private renewer: NodeJS.Timeout | null = null;

  constructor(services: Services, tasks: JobRegistry, opts: RunnerOptions = DEFAULT_RUNNER_OPTIONS) {
    this.services = services;
    this.tasks = tasks;
    this.opts = opts;
    this.lanes = (Object.keys(opts.lanes) as JobLane[]).map((name) => new Lane(name, opts.lanes[name]));
  }

  private lane(name: JobLane): Lane {
    return this.lanes.find((l) => l.name === name) ?? this.lanes[0]!;
  }

  start(): void {
    this.started = true;
    this.kick(0);
  }

  /**
   * Claims due jobs now instead of at the next poll. Called after the commit that enqueued a job,
   * so an idle worker starts it within milliseconds. Does nothing unless the runner was started
   * (tests drive runOnce by hand).
   */
  wake(): void {
    if (this.started) this.kick(0);
  }

  /**
   * Who may take a job of `owner` that a transaction is about to enqueue, and for how long: this
   * runner, when it is running and the owner's lane has a slot within the owner's share. The
   * transaction writes the lease itself (locked_by / locked_until), so after its commit `adopt`
   * runs the job at once — no claim transaction (and on the embedded store no extra fsync) between
   * a change and its webhook. If this process dies before it finishes, the lease runs out and any
   * worker claims it, as with a claim.
   */
  adopter(owner: JobOwner, endpointFailing = false): { workerId: string; leaseMs: number } | null {
    if (!this.started || this.stopped || !this.lane(owner.lane).fits(owner, endpointFailing)) return null;
    return { workerId: this.workerId, leaseMs: this.opts.leaseMs };
  }

  /** Runs jobs whose lease a committed transaction gave this runner (see `adopter`). */
  adopt(jobs: readonly ClaimedJob[]): void {
    // Stopped meanwhile: the lease runs out and another worker (or this one, restarted) claims them.
    if (this.stopped) return;
    // One commit may lease an owner more jobs than its share (each lease was granted alone): run
    // what fits, and give the rest back at once for a claim to take as the owner's slots free.
    const back: string[] = [];
    for (const job of jobs) {
      if (this.lane(job.lane).fits(job, job.endpointFailing === true)) void this.track(job);
      else back.push(job.id);
    }
    if (back.length > 0)
      void this.services.db
        .write((tx) => releaseJobs(tx, this.workerId, back))
        .catch((err: Error) => this.services.log.warn({ err: err.message }, 'could not give back jobs; their lease will run out'));
  }

  private kick(ms: number): void {
    if (this.stopped) return;
    if (this.claiming !== null) {
      this.again = true;
      return;
    }
    if (this.timer !== null) {
      if (ms > 0) return; // an earlier tick is already due
      clearTimeout(this.timer);
    }
    this.timer = setTimeout(() => {
      this.timer = null;
      this.claiming = this.tick().finally(() => {
        this.claiming = null;
        this.afterTick();
      });
    }, ms);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    this.again = false;
    this.failedTick = false;
    for (const lane of this.lanes) if (lane.free() <= 0) lane.backlog = true;
    try {
      for (const [lane, jobs] of await this.claim()) {
        for (const job of jobs) void this.track(job);
        // Fewer than free may still mean more to claim (an owner at its share filled the candidates).
        lane.backlog = jobs.length > 0;
      }
    } catch (err) {
      this.services.log.warn({ err }, 'job runner tick failed');
      this.failedTick = true;
    }
  }

  /**
   * Every lane with a free slot, claimed in one transaction: first the pool (the free slots beyond
   * the reserve) within each account's share, then the reserve for accounts running nothing here
   * (skipped when the lane is idle and the first claim found nothing: nothing is due).
   */
  private claim(): Promise<Array<[Lane, ClaimedJob[]]>> {
    const { db, clock } = this.services;
    const now = clock.now();
    const open = this.lanes.filter((lane) => lane.free() > 0);
    if (open.length === 0) return Promise.resolve([]);
    const claim = (tx: Tx, lane: Lane, limit: number, step: 'pool' | 'reserve', also: ClaimedJob[] = []): Promise<ClaimedJob[]> =>
      limit <= 0
        ? Promise.resolve([])
        : claimLaneJobs(tx, this.workerId, now, this.opts.leaseMs, limit, lane.name, lane.shares(step, also));
    return db.write(async (tx) => {
      const out: Array<[Lane, ClaimedJob[]]> = [];
      for (const lane of open) {
        const pooled = await claim(tx, lane, lane.free() - lane.opts.reserve, 'pool');
        const left = lane.free() - pooled.length;
        const nothingDue = pooled.length === 0 && lane.inflight.size === 0 && left > lane.opts.reserve;
        out.push([lane, nothingDue ? pooled : [...pooled, ...(await claim(tx, lane, left, 'reserve', pooled))]]);
      }
      return out;
    });
  }

  private afterTick(): void {
    if (this.failedTick) this.kick(this.opts.pollMs * 4);
    else if (this.again || this.lanes.some((l) => l.backlog && l.free() > 0)) this.kick(0);
    else this.kick(this.opts.pollMs);
  }

  private track(job: ClaimedJob): Promise<void> {
    const lane = this.lane(job.lane);
    lane.count(job, 1);
    this.runningJobs.set(job.id, job);
    this.renewer ??= setInterval(() => void this.renewLeases(), Math.max(1, Math.floor(this.opts.leaseMs / 3)));
    this.renewer.unref();
    const p: Promise<void> = this.runJob(job).finally(() => {
      lane.inflight.delete(p);
      lane.count(job, -1);
      this.runningJobs.delete(job.id);
      if (this.runningJobs.size === 0 && this.renewer !== null) {
        clearInterval(this.renewer);
        this.renewer = null;
      }
      // With a backlog, claim again once half the lane's slots are free: one claim per finished
      // job would turn every completion into a transaction of its own.
      if (this.started && (lane.backlog || this.again) && lane.inflight.size <= lane.opts.slots / 2) this.kick(0);
    });
    lane.inflight.add(p);
    return p;
  }

  /**
   * Every third of a lease, the jobs still running here get a whole lease from now. A renewal that
   * fails (the store briefly unreachable) is retried at the next; two in a row missed leave a third
   * of the lease to spare.
   */
  private async renewLeases(): Promise<void> {
    const ids = [...this.runningJobs.keys()];
    if (ids.length === 0) return;
    const { db, clock, log } = this.services;
    const until = clock.now() + this.opts.leaseMs;
    await db
      .write((tx) => renewJobLeases(tx, this.workerId, ids, until))
      .catch((err: Error) => log.warn({ err: err.message }, 'could not renew job leases; retrying'));
  }

  /** Claims and runs the jobs due now; returns how many ran. Tests call this with a fake clock. */
  runOnce(): Promise<number> {
    if (this.running !== null) return this.running;
    this.running = this.drain().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async drain(): Promise<number> {
    const jobs = (await this.claim()).flatMap(([, claimed]) => claimed);
    await Promise.all(jobs.map((job) => this.track(job)));
    return jobs.length;
  }

  /** One job, in a span that continues the trace of whatever enqueued it. */
  private runJob(job: ClaimedJob): Promise<void> {
    const attributes = { 'readybell.job.kind': job.kind, 'readybell.job.key': job.key, 'readybell.job.attempt': job.attempts };
    return inSpan(`job ${job.kind}`, attributes, () => this.execute(job), { parent: () => jobParent(job.payload) });
  }

  private async execute(job: ClaimedJob): Promise<void> {
    const { db, clock, log } = this.services;
    try {
      const result = await this.tasks.run(this.services, job);
      if (result?.settled) return;
      await db.write(async (tx) => {
        if (result && result.retryAt !== undefined) await retryJob(tx, job.id, result.retryAt, 'rescheduled');
        else await finishJob(tx, job.id, clock.now());
      });
    } catch (err) {
      log.warn({ job: job.key, attempts: job.attempts, err: (err as Error).message }, 'job failed; will retry');
      markSpanFailed((err as Error).message);
      await db.write((tx) => retryJob(tx, job.id, clock.now() + backoffMs(job.attempts), (err as Error).message)).catch(() => {});
    }
  }

  /** Stops claiming and waits for the jobs in flight to finish (graceful shutdown). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.claiming) await this.claiming.catch(() => {});
    if (this.running) await this.running.catch(() => {});
    await Promise.allSettled(this.lanes.flatMap((l) => [...l.inflight]));
  }
}
