// Prometheus metrics at /metrics. One registry per app instance (tests run several in one
// process). Labels use route patterns, never raw URLs, so customer tokens never become labels
// and cardinality stays bounded.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { FastifyInstance } from 'fastify';

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

export function registerMetricsRoutes(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', async (req, reply) => {
    const route = req.routeOptions.url ?? 'unmatched';
    metrics.httpRequests.inc({ method: req.method, route, status: String(reply.statusCode) });
    metrics.httpDuration.observe({ route }, reply.elapsedTime / 1000);
  });
  app.get('/metrics', { schema: { hide: true } }, async (_req, reply) => {
    return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
}
