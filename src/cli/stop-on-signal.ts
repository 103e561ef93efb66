// The one shutdown of a long-running command (`serve`, `worker`): on the first SIGTERM or SIGINT,
// log it, run the command's own close, and exit 0 — or 1 if the close fails or has not finished
// by the deadline (something is stuck; leases and the lock recover what it held). Installed before
// the command starts answering, so a process manager's SIGTERM is never the default kill.
import type { FastifyBaseLogger as Logger } from 'fastify';

export interface StopOnSignal {
  log: Pick<Logger, 'info' | 'error'>;
  /** Logged with the signal when shutdown starts. */
  stopping: string;
  /** Past this, exit 1 without waiting for `close` to finish. */
  forceAfterMs: number;
  close: () => Promise<void>;
}

export function stopOnSignal(opts: StopOnSignal): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    opts.log.info({ signal }, opts.stopping);
    setTimeout(() => process.exit(1), opts.forceAfterMs).unref();
    opts.close().then(
      () => process.exit(0),
      (err: unknown) => {
        opts.log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
