// The outbox worker: claims due jobs with a lease, runs their task, and marks them done or
// schedules a retry with backoff. A job whose worker died is claimed again when its lease ends,
// so nothing is lost; tasks are written to be safe to run twice (their effects are keyed).
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Services } from '../actions/ctx.ts';
import { claimJobs, finishJob, retryJob, type ClaimedJob } from '../store/outbox.ts';

export type TaskResult = { retryAt?: number } | void;
export type Task = (services: Services, payload: Record<string, unknown>, job: ClaimedJob) => Promise<TaskResult>;

export type RunnerOptions = { pollMs: number; leaseMs: number; batch: number };

export const DEFAULT_RUNNER_OPTIONS: RunnerOptions = { pollMs: 250, leaseMs: 30_000, batch: 50 };

/** 5 s, 30 s, 2 min, 10 min, then every 30 min: for internal jobs (webhooks have their own schedule). */
export function backoffMs(attempts: number): number {
  const steps = [5_000, 30_000, 120_000, 600_000];
  return steps[Math.min(attempts - 1, steps.length - 1)] ?? 1_800_000;
}

export class JobRunner {
  readonly workerId = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  private readonly services: Services;
  private readonly tasks: Map<string, Task>;
  private readonly opts: RunnerOptions;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;
  private stopped = false;

  constructor(services: Services, tasks: Map<string, Task>, opts: RunnerOptions = DEFAULT_RUNNER_OPTIONS) {
    this.services = services;
    this.tasks = tasks;
    this.opts = opts;
  }

  start(): void {
    const tick = async (): Promise<void> => {
      if (this.stopped) return;
      try {
        const n = await this.runOnce();
        // A full batch means more may be due: go again at once instead of waiting for the poll.
        this.timer = setTimeout(() => void tick(), n >= this.opts.batch ? 0 : this.opts.pollMs);
      } catch (err) {
        this.services.log.warn({ err }, 'job runner tick failed');
        this.timer = setTimeout(() => void tick(), this.opts.pollMs * 4);
      }
      this.timer?.unref();
    };
    this.timer = setTimeout(() => void tick(), 0);
    this.timer.unref();
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
    await Promise.all(jobs.map((job) => this.runJob(job)));
    return jobs.length;
  }

  private async runJob(job: ClaimedJob): Promise<void> {
    const { db, clock, log } = this.services;
    const task = this.tasks.get(job.kind);
    try {
      if (task === undefined) throw new Error(`no task for job kind ${job.kind}`);
      const result = await task(this.services, JSON.parse(job.payload) as Record<string, unknown>, job);
      await db.write(async (tx) => {
        if (result && result.retryAt !== undefined) await retryJob(tx, job.id, result.retryAt, 'rescheduled');
        else await finishJob(tx, job.id, clock.now());
      });
    } catch (err) {
      log.warn({ job: job.key, attempts: job.attempts, err: (err as Error).message }, 'job failed; will retry');
      await db.write((tx) => retryJob(tx, job.id, clock.now() + backoffMs(job.attempts), (err as Error).message)).catch(() => {});
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.running) await this.running.catch(() => {});
  }
}
