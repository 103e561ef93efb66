// What `serve` and `worker` say when OTEL_* asks for traces on a lean install, one without the
// OpenTelemetry packages (decision 0070): one warning, and the service runs untraced.
import type { Logger } from 'pino';
import { tracingUnavailable } from '../telemetry/tracing.ts';

export function warnTracingUnavailable(log: Pick<Logger, 'warn'>): void {
  const unavailable = tracingUnavailable();
  if (unavailable !== null) log.warn({ missing: unavailable.missing }, unavailable.message);
}
