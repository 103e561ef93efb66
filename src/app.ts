// Composition root: config → store → bus → limiter → server → workers, and an orderly shutdown.
import type { FastifyInstance } from 'fastify';
import type { Config } from './config.ts';
import type { Clock, Services } from './actions/ctx.ts';
import { systemClock } from './actions/ctx.ts';
import type { Db } from './store/db.ts';
import { openDb } from './store/open-db.ts';
import { createLogger } from './log.ts';
import type { DestinationStream } from 'pino';
import { createSharedState, type SharedState } from './realtime/shared-state.ts';
import { buildMetricsServer, createMetrics, watchJobBacklog } from './metrics.ts';
import { jobBacklog } from './store/outbox.ts';
import { SilentRinger } from './channels/ringer.ts';
import { installRingChannels } from './channels/install.ts';
import { PUSH_SCRIPT_PATH } from './http/routes/push.ts';
import { createLive, type Live } from './realtime/live.ts';
import { livePageRoutes } from './http/live-pages.ts';
import { buildServer } from './http/server.ts';
import { createSessionAuthenticator, staffRoutes } from './http/staff.ts';
import { JobRunner, DEFAULT_RUNNER_OPTIONS } from './jobs/runner.ts';
import { builtinTasks } from './jobs/tasks.ts';
import { Maintenance } from './jobs/maintenance.ts';
import { installWebhooks } from './webhooks/install.ts';

export { openDb };

export type App = {
  server: FastifyInstance;
  /** The Prometheus listener (METRICS_PORT); null when none is configured. */
  metricsServer: FastifyInstance | null;
  services: Services;
  runner: JobRunner;
  maintenance: Maintenance;
  shared: SharedState;
  /** Presence, the SSE hub and the page/display channels (createLive in src/realtime/live.ts). */
  live: Live;
  /** Listens on PORT/HOST, and on METRICS_PORT/METRICS_HOST when configured. */
  listen(): Promise<void>;
  /** Starts background work (jobs, expiry, retention). Tests may drive them by hand instead. */
  startWorkers(): void;
  close(): Promise<void>;
};

export type AppOptions = { clock?: Clock; db?: Db; logDestination?: DestinationStream };

export async function createApp(config: Config, opts: AppOptions = {}): Promise<App> {
  const log = createLogger(config, opts.logDestination);
  const db = opts.db ?? openDb(config);
  await db.migrate();
  const metrics = createMetrics();
  db.onGroupCommit = (writes) => metrics.groupCommitBatch.observe({ store: db.dialect }, writes);
  const shared = createSharedState(config, log, () => metrics.rateLimitFailures.inc());
  const services: Services = {
    config,
    db,
    log,
    clock: opts.clock ?? systemClock,
    bus: shared.bus,
    metrics,
    ringer: new SilentRinger(),
    eventHooks: [],
  };
  const limiter = shared.limiter;
  const live = createLive(services, { heartbeatMs: config.sseHeartbeatMs, presence: shared.presence });
  services.simulatedClients = live.simulated;
  // The ring-policy ringer (push, SMS) with the live channels (page, display).
  const ringing = installRingChannels(services, limiter, { channels: [live.pageChannel, live.displayChannel] });
  const lastUsedKeys = new Set<string>();
  const server = await buildServer({
    services,
    limiter,
    lastUsedKeys,
    readiness: shared.redis === null ? {} : { redis: shared.ping },
    metrics,
    session: createSessionAuthenticator(services),
    extraRoutes: [
      ...staffRoutes(services, limiter),
      ...livePageRoutes({ services, live, limiter, pushScript: PUSH_SCRIPT_PATH }),
      ringing.routes,
    ],
  });
  const metricsServer = config.metrics === null ? null : buildMetricsServer(metrics, log);
  const tasks = builtinTasks();
  const webhooks = installWebhooks(services, tasks);
  watchJobBacklog(
    metrics,
    [...tasks.keys()],
    () => jobBacklog(db, services.clock.now()),
    () => services.clock.now(),
  );
  const runner = new JobRunner(services, tasks, { ...DEFAULT_RUNNER_OPTIONS, ...config.jobs });
  services.jobs = runner;
  const maintenance = new Maintenance(services, lastUsedKeys);
  let closed = false;
  return {
    server,
    metricsServer,
    services,
    runner,
    maintenance,
    shared,
    live,
    async listen() {
      await server.listen({ port: config.port, host: config.host });
      if (metricsServer !== null && config.metrics !== null)
        await metricsServer.listen({ port: config.metrics.port, host: config.metrics.host });
    },
    startWorkers() {
      runner.start();
      maintenance.start();
    },
    async close() {
      if (closed) return;
      closed = true;
      await server.close();
      await metricsServer?.close();
      await live.close();
      await runner.stop();
      webhooks.close();
      await maintenance.stop();
      await shared.close();
      await db.close();
    },
  };
}
