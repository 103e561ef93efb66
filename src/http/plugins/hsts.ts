// Strict-Transport-Security (RFC 6797) on every answer that reached the client over HTTPS: the
// server's own TLS, or a TRUST_PROXY proxy saying X-Forwarded-Proto: https (Fastify believes the
// header only from those addresses). Never on plain HTTP, where it would promise what the
// deployment may not keep. One year and subdomains, as OWASP's HTTP headers guidance advises.
// Set on the raw response so that hijacked answers (live streams) carry it too; the pages keep
// their own headers (pages/page-headers.ts), which say nothing about transport.
import type { FastifyInstance } from 'fastify';

export const HSTS = 'max-age=31536000; includeSubDomains';

export function registerHsts(app: FastifyInstance): void {
  app.addHook('onRequest', async (req, reply) => {
    if (req.protocol === 'https') reply.raw.setHeader('strict-transport-security', HSTS);
  });
}
