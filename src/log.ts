// Structured JSON logs (pino). Authorization headers, cookies and the secret parts of customer
// and board links are never written.
import pino, { type Logger } from 'pino';
import type { Config } from './core/config.ts';

const TOKEN_PATH = /\/(t|board)\/[^/?]+/;
// An integrator who puts a key in a query string or path by mistake must not find it in our logs.
const API_KEY = /rk_(live|test)_[A-Za-z0-9_-]+/g;
// The OAuth callback's authorization code and state (the Square connector, decision 0073).
const OAUTH_PARAM = /([?&](?:code|state)=)[^&#]*/g;
export const redactUrl = (url: string): string =>
  url
    .replace(TOKEN_PATH, (_m, kind: string) => `/${kind}/[redacted]`)
    .replace(API_KEY, 'rk_$1_[redacted]')
    .replace(OAUTH_PARAM, '$1[redacted]');

/**
 * `destination` lets tests capture the log lines; the service writes to stdout. `traceIds` gives
 * the trace_id and span_id of the work being logged, when there is a trace (the composition root
 * passes telemetry's: the layers below it do not know of tracing).
 */
export function createLogger(
  config: Pick<Config, 'logLevel'>,
  destination?: pino.DestinationStream,
  traceIds?: () => { trace_id?: string; span_id?: string },
): Logger {
  return pino(
    {
      level: config.logLevel,
      ...(traceIds === undefined ? {} : { mixin: traceIds }),
      base: { service: 'readybell' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers.cookie',
          'headers.authorization',
          'headers.cookie',
          '*.password',
          '*.key',
          '*.secret',
        ],
        censor: '[redacted]',
      },
      serializers: {
        req: (req: { id: string; method: string; url: string; ip?: string }) => ({
          id: req.id,
          method: req.method,
          url: redactUrl(req.url),
        }),
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      },
    },
    destination,
  );
}
