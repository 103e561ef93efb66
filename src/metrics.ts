// Prometheus metrics at /metrics, on a listener of their own. One registry per app instance (tests
// run several in one process). Labels use route patterns, never raw URLs, so customer tokens never
// become labels and cardinality stays bounded.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { pooledRandom } from './domain/random-pool.ts';
import { problem, sendProblem } from './http/problems.ts';

export type Metrics = {
  registry: Registry;
  httpRequests: Counter<'method' | 'route' | 'status'>;
  httpDuration: Histogram<'route'>;
  rings: Counter<'channel_used' | 'reason'>;
  webhookAttempts: Counter<'outcome'>;
  sseConnections: Gauge<'kind'>;
  rateLimitFailures: Counter;
};

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'readybell_' });
  return {
    registry,
    httpRequests: new Counter({ name: 'readybell_http_requests_total', help: 'HTTP requests by route and status', labelNames: ['method', 'route', 'status'], registers: [registry] }),
    httpDuration: new Histogram({
      name: 'readybell_http_request_duration_seconds', help: 'HTTP request duration', labelNames: ['route'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5], registers: [registry],
    }),
    rings: new Counter({ name: 'readybell_rings_total', help: 'Completed rings by strongest channel reached', labelNames: ['channel_used', 'reason'], registers: [registry] }),
    webhookAttempts: new Counter({ name: 'readybell_webhook_attempts_total', help: 'Webhook delivery attempts by outcome', labelNames: ['outcome'], registers: [registry] }),
    sseConnections: new Gauge({ name: 'readybell_sse_connections', help: 'Open server-sent-event streams on this node', labelNames: ['kind'], registers: [registry] }),
    rateLimitFailures: new Counter({ name: 'readybell_rate_limit_failures_total', help: 'Requests served without a rate-limit decision because Redis was unreachable (fail open)', registers: [registry] }),
  };
}

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
  const app = Fastify({ loggerInstance: log, disableRequestLogging: true, genReqId: () => `req_${pooledRandom(12).toString('base64url')}` }) as unknown as FastifyInstance;
  app.get('/metrics', async (_req, reply) => {
    return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
  app.setNotFoundHandler((req, reply) => sendProblem(reply, problem(req, 'not-found', 'This listener serves only GET /metrics.')));
  return app;
}
