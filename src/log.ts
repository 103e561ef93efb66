// Structured JSON logs (pino). Authorization headers, cookies and the secret parts of customer
// and board links are never written.
import pino, { type Logger } from 'pino';
import type { Config } from './config.ts';

const TOKEN_PATH = /\/(t|board)\/[^/?]+/;
export const redactUrl = (url: string): string => url.replace(TOKEN_PATH, (_m, kind: string) => `/${kind}/[redacted]`);

export function createLogger(config: Pick<Config, 'logLevel'>): Logger {
  return pino({
    level: config.logLevel,
    base: { service: 'readybell' },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization', 'headers.cookie', '*.password', '*.key', '*.secret'], censor: '[redacted]' },
    serializers: {
      req: (req: { id: string; method: string; url: string; ip?: string }) => ({ id: req.id, method: req.method, url: redactUrl(req.url) }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
  });
}
