// Composition root: config → store → bus → limiter → ringer, live side, webhooks → services →
// server → workers, and an orderly shutdown. Services is built here once, complete, and never
// changed afterwards (decision 0027): what it holds is built first from the base services, and the
// job runner, which needs the finished Services, reaches it through a relay bound once.
import type { FastifyInstance } from 'fastify';
import type { Config } from './core/config.ts';
import { systemClock, type Clock } from './core/clock.ts';
import type { Db } from './core/db.ts';
import type { HostLookup } from './core/host-lookup.ts';
import { JobWakerRelay } from './core/jobs.ts';
import type { Ringer } from './core/ring.ts';
import type { BaseServices, Services } from './core/ctx.ts';
import type { EventSink } from './core/events.ts';
import { openDb } from './store/open-db.ts';
import { createLogger } from './log.ts';
import { activeTraceIds } from './telemetry/tracing.ts';
import type { DestinationStream } from 'pino';
import { createSharedState, type SharedState } from './realtime/shared-state.ts';
import { createMetrics, watchJobBacklog } from './metrics.ts';
import { buildMetricsServer } from './http/metrics-server.ts';
import { jobBacklog } from './store/outbox.ts';
import type { Channel } from './channels/ringer.ts';
import { installRingChannels } from './channels/install.ts';
import { createLive, type Live } from './realtime/live.ts';
import { createPageChannel } from './channels/page.ts';
import { createDisplayChannel } from './channels/display.ts';
import { buildServer } from './http/server.ts';
import { JobRunner, DEFAULT_RUNNER_OPTIONS } from './runner/runner.ts';
import { JobRegistry } from './core/job-registry.ts';
import { registerRingJobs } from './ring/jobs.ts';
import { walletModule } from './channels/wallet/close-job.ts';
import { Maintenance } from './jobs/maintenance.ts';
import { registerAccountJobs } from './jobs/account-deletion.ts';
import { installWebhooks } from './webhooks/install.ts';
import { installMail } from './mail/install.ts';
import { OutboundHttpClient } from './webhooks/http-client.ts';
import { systemLookup } from './webhooks/url-policy.ts';
import { webhookFanOut } from './webhooks/fan-out.ts';
import type { RingChannels } from './channels/install.ts';
import { withTicketHooks } from './actions/ticket-hooks.ts';
import { registerSchedules, startSchedules } from './runner/schedules.ts';
import type { AppModule } from './http/route-table.ts';
import { appleWalletModule } from './http/routes/wallet-apple.ts';
import { googleWalletModule } from './http/routes/google-wallet.ts';
import { pushModule } from './http/routes/push-module.ts';
import { paidMessagesModule } from './http/routes/paid-messages-module.ts';
import { CONNECTORS } from './connectors/installed.ts';
import { connectorModule } from './connectors/module.ts';
import { registerBillingJobs } from './billing/install.ts';
import { cancelSubscriptionFor } from './billing/account-billing.ts';

export type App = {
  server: FastifyInstance;
  /** The Prometheus listener (METRICS_PORT); null when none is configured. */
  metricsServer: FastifyInstance | null;
  services: Services;
  runner: JobRunner;
  maintenance: Maintenance;
  /** The installed channels' and connectors' modules (core/module.ts), in the order they were installed. */
  modules: readonly AppModule[];
  /** Each connector's token refresh, by name, as its scheduled job runs it (tests call it on a fake clock). */
  connectors: ReadonlyMap<string, { refreshTokens(): Promise<{ refreshed: number; failed: number }> }>;
  shared: SharedState;
  /** Presence, the SSE hub and the snapshots' cached reads (createLive in src/realtime/live.ts). */
  live: Live;
  /** The ring channels as installed (the ringer, the wallets' issuers). */
  ringChannels: RingChannels;
  /** Listens on PORT/HOST, and on METRICS_PORT/METRICS_HOST when configured. */
  listen(): Promise<void>;
  /** Starts background work (jobs, expiry, retention). Tests may drive them by hand instead. */
  startWorkers(): void;
  /** Enqueues each configured module's schedule: a run now, and its next slot (startWorkers calls it). */
  startSchedules(): Promise<void>;
  close(): Promise<void>;
};

/** What a caller may give instead of what the app would build; all but the first three are for tests. */
export type AppOptions = {
  clock?: Clock;
  db?: Db;
  logDestination?: DestinationStream;
  /** Resolves webhook and push service hosts (URL checks, deliveries, pushes) instead of DNS. */
  webhookLookup?: HostLookup;
  /** Ring channels that take the place of the built-in ones of the same name. */
  ringChannels?: Channel[];
  /** Wraps or replaces the ringer the app builds. */
  ringer?: (built: Ringer) => Ringer;
  /** Wraps or replaces the event sink (the webhook fan-out) the app builds. */
  events?: (fanOut: EventSink) => EventSink;
};

const REDIS_START_WAIT_MS = 3000;

export async function createApp(config: Config, opts: AppOptions = {}): Promise<App> {
  const log = createLogger(config, opts.logDestination, activeTraceIds);
  const db = opts.db ?? openDb(config);
  await db.migrate();
  const metrics = createMetrics();
  db.onGroupCommit = (writes) => metrics.groupCommitBatch.observe({ store: db.dialect }, writes);
  const shared = await createSharedState(config, log, () => metrics.rateLimitFailures.inc());
  // Redis is waited for briefly, not required: a node that cannot reach it starts degraded (decision 0053).
  if (shared.breaker !== null) {
    const up = await shared.breaker.whenUp(REDIS_START_WAIT_MS);
    if (!up) log.warn('redis unreachable at start: serving degraded');
    metrics.redisUp.set(up ? 1 : 0);
    shared.breaker.onChange((now) => metrics.redisUp.set(now ? 1 : 0));
  } else {
    metrics.redisUp.set(1);
  }
  const limiter = shared.limiter;
  const base: BaseServices = { config, db, log, clock: opts.clock ?? systemClock, bus: shared.bus, metrics };
  const live = createLive(base, { heartbeatMs: config.sseHeartbeatMs, presence: shared.presence });
  // Webhook deliveries and pushes go out through one client, which checks every address it
  // connects to (no second lookup between the check and the connection).
  const outbound = new OutboundHttpClient(opts.webhookLookup ?? systemLookup);
  // The ring-policy ringer (push, SMS) with the live channels (page, display).
  const liveChannels = { db: base.db, bus: base.bus, presence: live.presence };
  const ringing = installRingChannels(base, {
    channels: [createPageChannel(liveChannels), createDisplayChannel(liveChannels), ...(opts.ringChannels ?? [])],
    http: outbound,
  });
  // The features' modules: each declares its routes, jobs, schedules, hooks and health (decision 0076).
  const modules: AppModule[] = [
    pushModule,
    paidMessagesModule,
    walletModule(ringing.walletIssuers),
    appleWalletModule,
    googleWalletModule(ringing.googleWallet),
    ...CONNECTORS.map(connectorModule),
  ];
  // What runs only where the operator set a feature up: its schedules and its ticket hooks.
  const configured = modules.filter((m) => m.configured(config));
  const schedules = configured.flatMap((m) => m.schedules ?? []);
  const tasks = registerBillingJobs(registerAccountJobs(registerRingJobs(new JobRegistry()), cancelSubscriptionFor));
  for (const m of modules) m.jobs?.(tasks);
  registerSchedules(tasks, schedules);
  installWebhooks(config, tasks, outbound);
  const mail = installMail(config, tasks);
  const jobs = new JobWakerRelay();
  const services: Services = {
    ...base,
    ringer: opts.ringer === undefined ? ringing.ringer : opts.ringer(ringing.ringer),
    events: (opts.events ?? ((fanOut: EventSink) => fanOut))(
      withTicketHooks(
        webhookFanOut({ clock: base.clock, jobs: () => jobs }),
        configured.flatMap((m) => m.ticketHooks ?? []),
        () => jobs,
      ),
    ),
    jobs,
    webhookLookup: opts.webhookLookup,
    simulatedClients: live.simulated,
  };
  const runner = new JobRunner(services, tasks, { ...DEFAULT_RUNNER_OPTIONS, ...config.jobs });
  jobs.bind(runner);
  const lastUsedKeys = new Set<string>();
  const server = await buildServer({
    modules,
    services,
    limiter,
    lastUsedKeys,
    readiness: shared.redis === null ? {} : { redis: shared.ping },
    metrics,
    live,
    vapid: ringing.vapid,
  });
  const metricsServer = config.metrics === null ? null : buildMetricsServer(metrics, log);
  watchJobBacklog(
    metrics,
    [...tasks.keys()],
    () => jobBacklog(db, services.clock.now()),
    () => services.clock.now(),
  );
  const maintenance = new Maintenance(services, lastUsedKeys);
  const connectors = new Map(CONNECTORS.map((c) => [c.name, { refreshTokens: () => c.refreshTokens(services) }]));
  let closed = false;
  return {
    server,
    metricsServer,
    services,
    runner,
    maintenance,
    modules,
    connectors,
    shared,
    live,
    ringChannels: ringing,
    async listen() {
      await server.listen({ port: config.port, host: config.host });
      if (metricsServer !== null && config.metrics !== null)
        await metricsServer.listen({ port: config.metrics.port, host: config.metrics.host });
    },
    startWorkers() {
      runner.start();
      maintenance.start();
      // Each schedule runs once now (a node restarted more often than hourly still refreshes) and then every period.
      void startSchedules(services, schedules).catch((err: Error) => log.warn({ err: err.message }, 'schedules did not start'));
    },
    startSchedules() {
      return startSchedules(services, schedules);
    },
    async close() {
      if (closed) return;
      closed = true;
      await server.close();
      await metricsServer?.close();
      await live.close();
      await runner.stop();
      outbound.close();
      mail.close();
      ringing.close();
      await maintenance.stop();
      await shared.close();
      await db.close();
    },
  };
}
