// Apple's Pass Type ID certificate expires a year after it is made, without warning: then every
// "Add to Apple Wallet" and every APNs push fails. Its end is a metric (an operator alerts on it),
// in /readyz's details (http/routes/health.ts), and a warning in the log from 30 days before, at
// start and once a day after.
import type { FastifyBaseLogger as Logger } from 'fastify';
import { Gauge } from 'prom-client';
import type { AppleWalletConfig } from '../../../core/config.ts';
import type { Clock } from '../../../core/clock.ts';
import type { Metrics } from '../../../core/metrics.ts';
import { certificateExpiry } from '../../../domain/certificate-expiry.ts';

const DAY_MS = 86_400_000;

export const PASS_CERTIFICATE_EXPIRY_METRIC = 'readybell_apple_pass_certificate_expiry_timestamp_seconds';

/** Starts watching; returns the function that stops it. */
export function watchPassCertificate(deps: { apple: AppleWalletConfig; clock: Clock; log: Logger; metrics?: Metrics }): () => void {
  const { apple, clock, log, metrics } = deps;
  const { expiresAt } = certificateExpiry(apple.cert, clock.now());
  if (metrics !== undefined && metrics.registry.getSingleMetric(PASS_CERTIFICATE_EXPIRY_METRIC) === undefined) {
    new Gauge({
      name: PASS_CERTIFICATE_EXPIRY_METRIC,
      help: 'When the Apple Pass Type ID certificate (APPLE_PASS_CERT) expires, in seconds since the epoch: alert 30 days before',
      registers: [metrics.registry],
    }).set(Math.floor(expiresAt / 1000));
  }
  const check = (): void => {
    const e = certificateExpiry(apple.cert, clock.now());
    if (e.state === 'ok') return;
    const at = new Date(e.expiresAt).toISOString();
    if (e.state === 'expired')
      log.error(
        { expires_at: at },
        'The Apple pass certificate has expired: Wallet passes and their pushes fail until APPLE_PASS_CERT is renewed',
      );
    else
      log.warn(
        { expires_at: at, days_left: e.daysLeft },
        `The Apple pass certificate expires in ${e.daysLeft} days: renew it in Apple's developer account and replace APPLE_PASS_CERT and APPLE_PASS_KEY`,
      );
  };
  check();
  const daily = setInterval(check, DAY_MS);
  daily.unref();
  return () => clearInterval(daily);
}
