// The metrics' HTTP side: the hook that counts the public server's answers, and the listener that
// serves /metrics. Apart from the recording functions (src/metrics.ts), which every layer calls, so
// that recording a figure does not import Fastify and the HTTP problems.
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Metrics } from '../core/metrics.ts';
import { pooledRandom } from '../domain/random-pool.ts';
import { problem, sendProblem } from './problems.ts';

/** Counts every answer of the public server by route pattern. */
export function registerRequestMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', async (req, reply) => {
    const route = req.routeOptions.url ?? 'unmatched';
    metrics.httpRequests.inc({ method: req.method, route, status: String(reply.statusCode) });
    metrics.httpDuration.observe({ route }, reply.elapsedTime / 1000);
  });
}

/**
 * The metrics listener (METRICS_PORT, on METRICS_HOST: loopback by default): /metrics and nothing
 * else. Never the public port: the figures say how busy each branch's routes are and how rings
 * fare, which is nobody's business outside the operator's network (decision 0012).
 */
export function buildMetricsServer(metrics: Metrics, log: FastifyBaseLogger): FastifyInstance {
  const app = Fastify({
    loggerInstance: log,
    // The metrics scrapes are not requests worth a log line (the option, not the deprecated top-level one: FSTDEP023).
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: () => `req_${pooledRandom(12).toString('base64url')}`,
  }) as unknown as FastifyInstance;
  app.get('/metrics', async (_req, reply) => {
    return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
  app.setNotFoundHandler((req, reply) => sendProblem(reply, problem(req, 'not-found', 'This listener serves only GET /metrics.')));
  return app;
}
