// /healthz and /readyz for load balancers and orchestrators. /readyz asks the store (and Redis,
// when there is one) with a short time limit, and says whether the node is shedding load.
// Only what a node cannot serve without makes it 503 (the store; a node shutting down answers
// 503 from plugins/draining.ts): without Redis a node serves in a degraded way (decision 0053),
// so it stays in rotation and says so in the body.
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../core/ctx.ts';
import type { FeatureModule } from '../../core/module.ts';

export type HealthDeps = {
  services: Services;
  /** Dependencies the node serves without, degraded (Redis): reported by /readyz, never a 503. */
  readiness: Record<string, () => Promise<void>>;
  shedding: () => boolean;
  /** The installed modules: each configured one with a health check says it under its kind (connectors.<name>). */
  modules: readonly FeatureModule[];
};

const CHECK_TIMEOUT_MS = 2000;

async function outcome(check: () => Promise<void>): Promise<string> {
  return Promise.race([
    check().then(
      () => 'ok',
      () => 'unavailable',
    ),
    new Promise<string>((r) => setTimeout(() => r('timeout'), CHECK_TIMEOUT_MS).unref()),
  ]);
}

/** `{ connectors: { square: {…} }, channels: {…} }` for the configured modules with a health check. */
async function moduleHealth(services: Services, modules: readonly FeatureModule[]): Promise<Record<string, Record<string, unknown>>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const m of modules) {
    if (m.health === undefined || !m.configured(services.config)) continue;
    const section = m.kind === 'connector' ? 'connectors' : 'channels';
    const said = await m.health(services).catch(() => null);
    out[section] = { ...out[section], [m.name]: said ?? { status: 'unavailable' } };
  }
  return out;
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/**
 * What this node saw of the store's server lately (decision 0089): outages it went through and
 * when it found another server behind the address (a failover), so an operator reading /readyz
 * after the fact learns what happened meanwhile.
 */
function storeHistory(services: Services): { store_history?: unknown } {
  const h = services.db.history?.();
  if (h === undefined) return {};
  return {
    store_history: {
      outages: h.outages.map((o) => ({ from: iso(o.from), to: iso(o.to), error: o.error })),
      server: h.server === null ? null : { started_at: iso(h.server.startedAt), role: h.server.role, changed_at: iso(h.server.changedAt) },
    },
  };
}

export function registerHealthRoutes(app: FastifyInstance, deps: HealthDeps): void {
  const { services } = deps;
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (_req, reply) => {
    const names = ['store', ...Object.keys(deps.readiness)];
    const results = await Promise.all([outcome(() => services.db.ping()), ...Object.values(deps.readiness).map(outcome)]);
    const checks = Object.fromEntries(names.map((n, i) => [n, results[i]!]));
    const status = checks.store !== 'ok' ? 'unavailable' : results.every((r) => r === 'ok') ? 'ready' : 'degraded';
    // What the modules say of themselves (a connector: its connections whose token could not be
    // renewed, whose orders stop becoming tickets until an owner connects again). Said here for the
    // operator's monitoring; the node stays ready.
    const modules = checks.store === 'ok' ? await moduleHealth(services, deps.modules) : {};
    // A shedding node stays ready: it refuses what it cannot take, and takes what it can.
    return reply.code(status === 'unavailable' ? 503 : 200).send({
      status,
      store: services.db.dialect,
      checks,
      load: deps.shedding() ? 'shedding' : 'ok',
      ...modules,
      ...storeHistory(services),
    });
  });
}
