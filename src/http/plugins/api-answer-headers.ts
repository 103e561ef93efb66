// The headers integrators' tools and scanners expect on an API's answers (OWASP REST Security
// Cheat Sheet): X-Content-Type-Options: nosniff on every /v1 answer, so a browser never reads an
// answer as another type than the one declared, and Cache-Control: no-store on every JSON one,
// so no browser, proxy or CDN keeps a branch's tickets, keys or problems. An answer that says how
// it may be cached keeps its own word (a ticket's QR code is an image cached for a day), and the
// OpenAPI document, the same for everyone and changed only by a release, is left cacheable.
import type { FastifyInstance } from 'fastify';

const API = /^\/v1(\/|\?|$)/;
const JSON_TYPE = /^application\/([\w.+-]+\+)?json\b/i;
const DOCUMENT = /^\/v1\/openapi\.json(\?|$)/;

export function registerApiAnswerHeaders(app: FastifyInstance): void {
  app.addHook('onSend', (req, reply, payload, done) => {
    if (API.test(req.url)) {
      reply.header('X-Content-Type-Options', 'nosniff');
      if (!reply.hasHeader('cache-control') && JSON_TYPE.test(String(reply.getHeader('content-type') ?? '')) && !DOCUMENT.test(req.url))
        reply.header('Cache-Control', 'no-store');
    }
    done(null, payload);
  });
}
