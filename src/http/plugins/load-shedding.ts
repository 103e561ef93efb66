// Load shedding. A node past its limits (the mean event-loop delay of the last sample, or the heap
// in use) answers new requests at once with 503 unavailable and Retry-After, before authentication
// or any store work, instead of queueing them behind work it cannot finish in time: a queued
// request would wait past its client's timeout, be retried on top, and hold memory meanwhile,
// while a refused one costs a few microseconds and tells the client when to come back (to this
// node or, through the load balancer, another). The answer takes the path of every other
// 503 (the error handler's problem document, with Request-Id); an idempotent write refused so is
// never stored under its key (http/write.ts), so the retry performs it.
import type { FastifyInstance } from 'fastify';
import underPressure from '@fastify/under-pressure';
import type { Config } from '../../core/config.ts';
import { unavailable } from '../../domain/errors.ts';

/**
 * Never refused. Health and readiness: the load balancer must still see the node alive (readiness
 * reports the shedding, without failing for it: every node of an overloaded fleet would drop out
 * at once). Opening a live stream: an open stream costs the node next to nothing, and it is how a
 * ring reaches a customer page, a board or the staff page. The pages' and boards' ring
 * confirmations: they complete a ring already under way, and refusing one would cost more work
 * (the ring falls back to SMS, the board announces again), not less.
 */
export const NEVER_SHED: ReadonlySet<string> = new Set([
  '/healthz',
  '/readyz',
  '/v1/stream',
  '/t/:token/events',
  '/board/:token/events',
  '/t/:token/ring-ack',
  '/board/:token/ack',
]);

/** At most one warning this often while shedding, with how many requests were refused since. */
const REPORT_EVERY_MS = 10_000;

/** Registers the limits; returns whether the node is shedding now, for /readyz to report. */
export async function registerLoadShedding(app: FastifyInstance, limits: Config['shedding']): Promise<() => boolean> {
  // The node looks at itself again after one sample: the earliest a retry can find it recovered.
  const retryAfter = Math.max(1, Math.ceil(limits.sampleIntervalMs / 1000));
  // A node's own start (compiling every route's schemas, on a busy machine well over a second of
  // event loop) is not overload, but it fills the sample under way when the node becomes ready:
  // the limits hold from the first sample taken wholly after that.
  let armedAt = Infinity;
  app.addHook('onReady', async () => {
    armedAt = Date.now() + 2 * limits.sampleIntervalMs;
  });
  const shedding = (): boolean => Date.now() >= armedAt && app.isUnderPressure();
  let refused = 0;
  let reportedAt = -Infinity;
  await app.register(underPressure, {
    maxEventLoopDelay: limits.eventLoopDelayMs,
    maxHeapUsedBytes: limits.heapUsedBytes,
    sampleInterval: limits.sampleIntervalMs,
    pressureHandler: (req, _reply, limit, value) => {
      const now = Date.now();
      if (now < armedAt || NEVER_SHED.has(req.routeOptions.url ?? '')) return undefined;
      refused++;
      if (now - reportedAt >= REPORT_EVERY_MS) {
        req.log.warn({ limit, value, refused }, 'overloaded: answering new requests 503 unavailable');
        reportedAt = now;
        refused = 0;
      }
      return Promise.reject(unavailable(`This node is overloaded; retry the request after ${retryAfter} s.`, retryAfter));
    },
  });
  return shedding;
}
