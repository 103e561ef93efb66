// `readybell serve`: listen, run the workers, and shut down in order on SIGTERM/SIGINT: stop
// accepting, let in-flight requests finish, stop the workers, close the store. On the embedded
// store the data directory is locked first: a second server on it is refused (decision 0045).
import type { Config } from '../core/config.ts';
import { createApp } from '../app.ts';
import { recordPublicUrl, runDemo } from './demo.ts';
import { hasAnyAccount } from '../store/tenancy.ts';
import { stopTracing, tracingOn } from '../telemetry/tracing.ts';
import { warnTracingUnavailable } from './tracing-warning.ts';
import { lockDataDir, type ServeLock } from '../store/sqlite/serve-lock.ts';
import { AppError } from '../domain/errors.ts';
import { stopOnSignal } from './stop-on-signal.ts';

/** A port already taken, said with the setting that moves it (PORT or METRICS_PORT); null for any other error. */
function portTaken(err: unknown, config: Config): AppError | null {
  const e = err as { code?: string; port?: number; address?: string };
  if (e.code !== 'EADDRINUSE') return null;
  const metrics = config.metrics !== null && e.port === config.metrics.port && e.port !== config.port;
  const setting = metrics ? 'METRICS_PORT' : 'PORT';
  return new AppError(
    'conflict',
    `Port ${e.port ?? (metrics ? config.metrics!.port : config.port)} on ${e.address ?? config.host} is already in use ` +
      `(another readybell, or another program, listens there). Stop it, or set ${setting} to a free port, e.g. ${setting}=${(e.port ?? 3000) + 1}.`,
  );
}

export async function serve(given: Config, opts: { demo: boolean }): Promise<void> {
  // npm start's demo shows the whole of sign-up unless SIGNUP says otherwise (decision 0081).
  const config: Config = opts.demo && given.signup.defaulted ? { ...given, signup: { ...given.signup, mode: 'open' } } : given;
  const started = performance.now();
  const startedAt = new Date().toISOString();
  // Before the store is opened (and migrated): the second server touches nothing.
  const lock: ServeLock | null = config.databaseUrl === null ? lockDataDir(config.dataDir) : null;
  lock?.describe({ pid: process.pid, port: config.port, started_at: startedAt });
  const app = await createApp(config);
  warnTracingUnavailable(app.services.log);
  // Before listening: a SIGTERM that arrives once /healthz answers is a graceful stop.
  stopOnSignal({
    log: app.services.log,
    stopping: 'shutting down',
    forceAfterMs: 15_000,
    // The spans still buffered are sent after the last request and job they describe. The lock
    // outlives the store: no second server starts on a store still being closed. The reference
    // here also keeps the lock's connection from being collected while serving.
    close: () =>
      app
        .close()
        .then(() => lock?.release())
        .then(stopTracing),
  });
  let banner: string | null = null;
  if (opts.demo && !(await hasAnyAccount(app.services.db))) {
    banner = (await runDemo(app.services.db, config)).human;
  }
  try {
    await app.listen();
  } catch (err) {
    await app.close();
    lock?.release();
    throw portTaken(err, config) ?? err;
  }
  const address = app.server.server.address();
  if (typeof address === 'object' && address !== null) lock?.describe({ pid: process.pid, port: address.port, started_at: startedAt });
  await recordPublicUrl(app.services.db, config);
  app.startWorkers();
  const ms = Math.round(performance.now() - started);
  const store = config.databaseUrl ? 'PostgreSQL' : `embedded store in ${config.dataDir}`;
  if (opts.demo) {
    process.stdout.write(`\nreadybell is running at ${config.publicUrl} (${store}; ready in ${ms} ms)\n`);
    process.stdout.write(
      banner !== null
        ? `\n${banner}\n\n`
        : `  API: ${config.publicUrl}/v1   Docs: ${config.publicUrl}/docs   Staff: ${config.publicUrl}/staff\n  Need a fresh test key? npm run cli -- demo (add --reset-password for a new owner password)\n\n`,
    );
  }
  const metricsAddress = app.metricsServer?.server.address();
  const metrics = typeof metricsAddress === 'object' && metricsAddress !== null ? `${metricsAddress.address}:${metricsAddress.port}` : null;
  app.services.log.info({ port: config.port, metrics, tracing: tracingOn(), store: app.services.db.dialect, startup_ms: ms }, 'listening');
}
