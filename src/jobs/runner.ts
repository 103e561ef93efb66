// The outbox worker: claims due jobs with a lease, runs their task, and marks them done or
// schedules a retry with backoff. A job whose worker died is claimed again when its lease ends,
// so nothing is lost; tasks are written to be safe to run twice (their effects are keyed).
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Services } from '../core/ctx.ts';
import { claimJobs, finishJob, retryJob } from '../store/outbox.ts';
import type { ClaimedJob } from '../core/jobs.ts';
import { inSpan, jobParent, markSpanFailed } from '../telemetry/tracing.ts';
import type { JobRegistry } from './registry.ts';

/** `batch`: the most jobs claimed at once and in flight at any time. */
export type RunnerOptions = { pollMs: number; leaseMs: number; batch: number };

export const DEFAULT_RUNNER_OPTIONS: RunnerOptions = { pollMs: 250, leaseMs: 30_000, batch: 50 };

/** 5 s, 30 s, 2 min, 10 min, then every 30 min: for internal jobs (webhooks have their own schedule). */
export function backoffMs(attempts: number): number {
  const steps = [5_000, 30_000, 120_000, 600_000];
  return steps[Math.min(attempts - 1, steps.length - 1)] ?? 1_800_000;
}

// Jobs run concurrently up to `batch`, and new ones are claimed while others are still running:
// one receiver that takes its full 10 s must not hold back every other job behind it.
export class JobRunner {
  readonly workerId = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  private readonly services: Services;
  private readonly tasks: JobRegistry;
  private readonly opts: RunnerOptions;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;
  private claiming: Promise<void> | null = null;
  private readonly inflight = new Set<Promise<void>>();
  private started = false;
  private stopped = false;
  /** A wake arrived during a claim, or the last claim filled every free slot: more may be due. */
  private again = false;
  private backlog = false;
  private failedTick = false;

  constructor(services: Services, tasks: JobRegistry, opts: RunnerOptions = DEFAULT_RUNNER_OPTIONS) {
    this.services = services;
    this.tasks = tasks;
    this.opts = opts;
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
   * Who may take the jobs a transaction is about to enqueue, and for how long: this runner, when
   * it is running and has a free slot. The transaction writes the lease itself (locked_by /
   * locked_until), so after its commit `adopt` runs the jobs at once — no claim transaction (and on
   * the embedded store no extra fsync) between a change and its webhook. If this process dies
   * before they finish, the lease runs out and any worker claims them, as with a claim.
   */
  adopter(): { workerId: string; leaseMs: number } | null {
    if (!this.started || this.stopped || this.inflight.size >= this.opts.batch) return null;
    return { workerId: this.workerId, leaseMs: this.opts.leaseMs };
  }

  /** Runs jobs whose lease a committed transaction gave this runner (see `adopter`). */
  adopt(jobs: readonly ClaimedJob[]): void {
    // Stopped meanwhile: the lease runs out and another worker (or this one, restarted) claims them.
    if (this.stopped) return;
    for (const job of jobs) void this.track(job);
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
    const free = this.opts.batch - this.inflight.size;
    if (free <= 0) {
      this.backlog = true;
      return;
    }
    try {
      const jobs = await claimJobs(this.services.db, this.workerId, this.services.clock.now(), this.opts.leaseMs, free);
      for (const job of jobs) this.track(job);
      this.backlog = jobs.length >= free;
    } catch (err) {
      this.services.log.warn({ err }, 'job runner tick failed');
      this.failedTick = true;
    }
  }

  private afterTick(): void {
    if (this.failedTick) this.kick(this.opts.pollMs * 4);
    else if ((this.again || this.backlog) && this.inflight.size < this.opts.batch) this.kick(0);
    else this.kick(this.opts.pollMs);
  }

  private track(job: ClaimedJob): Promise<void> {
    const p: Promise<void> = this.runJob(job).finally(() => {
      this.inflight.delete(p);
      // With a backlog, claim again once half the slots are free: one claim per finished job
      // would turn every completion into a transaction of its own.
      if (this.started && (this.backlog || this.again) && this.inflight.size <= this.opts.batch / 2) this.kick(0);
    });
    this.inflight.add(p);
    return p;
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
    const { db, clock } = this.services;
    const jobs = await claimJobs(db, this.workerId, clock.now(), this.opts.leaseMs, this.opts.batch);
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
    await Promise.allSettled([...this.inflight]);
  }
}
