// What actions need of this node's job runner (src/jobs/runner.ts): a job their transaction
// enqueued is started within milliseconds of the commit, by waking the runner or by handing it the
// jobs already leased to it. The runner is built after the services it runs jobs with, so the
// composition root gives the services a relay and binds the runner to it once built.

/** A job leased to a worker: what the runner needs to run it. `payload` is its stored JSON. */
export type ClaimedJob = { id: string; kind: string; key: string; payload: string; attempts: number };

/** A worker that may take the jobs a transaction is about to enqueue, and for how long. */
export type JobAdopter = { workerId: string; leaseMs: number };

export interface JobWaker {
  /** Claims due jobs now instead of at the next poll; called after a commit that enqueued some. */
  wake(): void;
  /** Who may take the jobs a transaction is about to enqueue (null: nobody; leave them to a claim). */
  adopter(): JobAdopter | null;
  /** Runs jobs whose lease a committed transaction gave this worker (see `adopter`). */
  adopt(jobs: readonly ClaimedJob[]): void;
}

/**
 * A JobWaker that forwards to the runner bound to it. Until then (or with no runner at all, as
 * in a process that runs no jobs) nothing is woken and nobody adopts: the jobs wait, durable in
 * the store, for a worker's claim.
 */
export class JobWakerRelay implements JobWaker {
  private target: JobWaker | null = null;

  /** Once, by the composition root, when the runner exists. */
  bind(target: JobWaker): void {
    if (this.target !== null) throw new Error('a job waker relay is bound once');
    this.target = target;
  }

  wake(): void {
    this.target?.wake();
  }

  adopter(): JobAdopter | null {
    return this.target === null ? null : this.target.adopter();
  }

  adopt(jobs: readonly ClaimedJob[]): void {
    this.target?.adopt(jobs);
  }
}
