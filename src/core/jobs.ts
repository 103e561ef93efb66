// What actions need of this node's job runner (src/runner/runner.ts): a job their transaction
// enqueued is started within milliseconds of the commit, by waking the runner or by handing it the
// jobs already leased to it. The runner is built after the services it runs jobs with, so the
// composition root gives the services a relay and binds the runner to it once built.

/**
 * The lane a job runs in (decision 0048): each lane has its own slots on every node, so rings
 * (ring jobs, reminders, ladder steps, snooze ends) never wait behind webhook deliveries.
 */
export const JOB_LANES = ['ring', 'webhook'] as const;
export type JobLane = (typeof JOB_LANES)[number];

/**
 * Whose work a job is, for the fair shares of a lane's slots: the account it is done for and, for
 * a delivery, the webhook endpoint it goes to (null where unknown: such jobs share no cap).
 */
export type JobOwner = { lane: JobLane; accountId: string | null; endpointId: string | null };

/** A job leased to a worker: what the runner needs to run it. `payload` is its stored JSON. */
export type ClaimedJob = JobOwner & {
  id: string;
  kind: string;
  key: string;
  payload: string;
  attempts: number;
  /** Handed over with a commit: whether its endpoint was failing then (it then gets one slot). */
  endpointFailing?: boolean;
};

/** A worker that may take the jobs a transaction is about to enqueue, and for how long. */
export type JobAdopter = { workerId: string; leaseMs: number };

export interface JobWaker {
  /** Claims due jobs now instead of at the next poll; called after a commit that enqueued some. */
  wake(): void;
  /**
   * Who may take a job of this owner that a transaction is about to enqueue (null: nobody, as when
   * the owner already holds its share of the lane's slots; leave it to a claim).
   */
  adopter(owner: JobOwner, endpointFailing?: boolean): JobAdopter | null;
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

  adopter(owner: JobOwner, endpointFailing = false): JobAdopter | null {
    return this.target === null ? null : this.target.adopter(owner, endpointFailing);
  }

  adopt(jobs: readonly ClaimedJob[]): void {
    this.target?.adopt(jobs);
  }
}
