// What the composition root (app.ts) adds for the Square connector: its two job kinds, the event
// sink's wrapper that tells Square of a staff ready (mark-prepared.ts), and the token refresher.
import type { Config } from '../../core/config.ts';
import type { Services } from '../../core/ctx.ts';
import type { EventSink } from '../../core/events.ts';
import type { JobWaker } from '../../core/jobs.ts';
import type { JobRegistry } from '../../core/job-registry.ts';
import { SQUARE_PREPARED_JOB, squarePreparedJob, squareReadySink } from './mark-prepared.ts';
import { SQUARE_ORDER_JOB, squareOrderJob } from './order-sync.ts';
import { SquareTokenRefresher } from './token-refresh.ts';

export function registerSquareJobs(registry: JobRegistry): JobRegistry {
  return registry.set(SQUARE_ORDER_JOB, squareOrderJob).set(SQUARE_PREPARED_JOB, squarePreparedJob);
}

/** Without a Square application no ticket can be Square's to mark prepared: every event skips the wrapper. */
export const withSquareEvents = (config: Config, sink: EventSink, jobs: () => JobWaker): EventSink =>
  config.square === null ? sink : squareReadySink(sink, jobs);

export const squareTokenRefresher = (services: Services): SquareTokenRefresher => new SquareTokenRefresher(services);
