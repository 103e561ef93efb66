// /healthz and /readyz for load balancers and orchestrators. /readyz asks the store (and Redis,
// when there is one) with a short time limit, and says whether the node is shedding load.
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../core/ctx.ts';

export type HealthDeps = {
  services: Services;
  /** Dependencies /readyz reports besides the store (Redis). */
  readiness: Record<string, () => Promise<void>>;
  shedding: () => boolean;
};

const CHECK_TIMEOUT_MS = 2000;

export function registerHealthRoutes(app: FastifyInstance, deps: HealthDeps): void {
  const { services } = deps;
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (_req, reply) => {
    const checks: Record<string, () => Promise<void>> = { store: () => services.db.ping(), ...deps.readiness };
    const results: Record<string, string> = {};
    await Promise.all(
      Object.entries(checks).map(async ([name, check]) => {
        results[name] = await Promise.race([
          check().then(
            () => 'ok',
            () => 'unavailable',
          ),
          new Promise<string>((r) => setTimeout(() => r('timeout'), CHECK_TIMEOUT_MS).unref()),
        ]);
      }),
    );
    const ok = Object.values(results).every((r) => r === 'ok');
    // A shedding node stays ready: it refuses what it cannot take, and takes what it can.
    return reply.code(ok ? 200 : 503).send({
      status: ok ? 'ready' : 'unavailable',
      store: services.db.dialect,
      checks: results,
      load: deps.shedding() ? 'shedding' : 'ok',
    });
  });
}
