// Job kinds and their handlers. A kind is a value that carries its payload's type
// (`defineJobKind<P>('ring')`), defined once beside the code that enqueues it; `newJob`
// (store/outbox.ts) builds a job of that kind from a payload of that type, and the registry maps
// each kind to the handler that receives that type. So a payload is written and read through one
// type, and a kind's name is written once. It is in core because every layer that enqueues or
// handles a job (the ring, the webhooks, the verbs) names kinds, and the runner above them all
// only runs the registry the composition root builds (app.ts: ring/jobs.ts and webhooks/install.ts
// add to it).
import type { Services } from './ctx.ts';
import type { ClaimedJob, JobLane } from './jobs.ts';

/**
 * A job kind: its name in the jobs table, the lane its jobs run in (decision 0048), and (as a
 * type only) the payload its jobs carry.
 */
export type JobKind<P> = { readonly kind: string; readonly lane: JobLane; readonly payload?: P };

export const defineJobKind = <P>(kind: string, lane: JobLane = 'ring'): JobKind<P> => ({ kind, lane });

/**
 * `retryAt`: run the job again then. `settled`: the handler already finished or rescheduled its
 * job in its own transaction (together with its effects), so the runner writes nothing more.
 */
// biome-ignore lint/suspicious/noConfusingVoidType: a handler with nothing to report returns nothing (`async () => {}`), which `undefined` would refuse
export type TaskResult = { retryAt?: number; settled?: boolean } | void;

export type JobHandler<P> = (services: Services, payload: P, job: ClaimedJob) => Promise<TaskResult>;

type StoredHandler = (services: Services, job: ClaimedJob) => Promise<TaskResult>;

export class JobRegistry {
  private readonly handlers = new Map<string, StoredHandler>();

  /** Registers the handler of a kind; a kind has one handler. */
  set<P>(kind: JobKind<P>, handler: JobHandler<P>): this {
    if (this.handlers.has(kind.kind)) throw new Error(`job kind ${kind.kind} is registered twice`);
    // The one place a stored payload becomes its kind's type: every job of a kind was built by
    // newJob from that type (or by a statement written for it).
    this.handlers.set(kind.kind, (services, job) => handler(services, JSON.parse(job.payload) as P, job));
    return this;
  }

  /** The registered kinds' names (metrics watch their backlog). */
  keys(): IterableIterator<string> {
    return this.handlers.keys();
  }

  run(services: Services, job: ClaimedJob): Promise<TaskResult> {
    const handler = this.handlers.get(job.kind);
    if (handler === undefined) return Promise.reject(new Error(`no task for job kind ${job.kind}`));
    return handler(services, job);
  }
}
