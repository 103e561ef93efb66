// `readybell worker`: the background half of the service without HTTP — the outbox (webhook
// deliveries, rings) and maintenance (expiry, retention) — on the same configuration and store.
// Run any number of them beside `serve` (which runs the same work by default); jobs are claimed
// with leases, so no two workers run one job at once, and a killed worker's jobs are taken over
// when their lease ends. SIGTERM/SIGINT stop claiming and let the jobs in flight finish.
import type { Config } from '../core/config.ts';
import { createApp } from '../app.ts';
import { stopTracing } from '../telemetry/tracing.ts';
import { stopOnSignal } from './stop-on-signal.ts';
import { warnTracingUnavailable } from './tracing-warning.ts';

export async function runWorker(config: Config): Promise<void> {
  const app = await createApp(config);
  warnTracingUnavailable(app.services.log);
  app.startWorkers();
  // The runner's timers are unref'd (they must not keep `serve` or a test alive); here nothing
  // else holds the process open, so this does until a signal arrives.
  const keepAlive = setInterval(() => {}, 3600_000);
  app.services.log.info({ store: app.services.db.dialect, worker: app.runner.workerId }, 'worker started');
  stopOnSignal({
    log: app.services.log,
    stopping: 'worker stopping: finishing jobs in flight',
    // A delivery takes at most 10 s; past this something is stuck and the lease will recover it.
    forceAfterMs: 20_000,
    close: () => {
      clearInterval(keepAlive);
      return app.close().then(stopTracing);
    },
  });
}
