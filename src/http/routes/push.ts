// Web Push for customers: the server key (GET /push/vapid.json), the page's script (/push.js) and
// the service worker's handlers (/push-sw.js), and POST /t/<token>/push, which stores the
// browser's PushSubscription and records "notifications on" exactly as the test helper does.
import { write } from '../../write/idempotent-write.ts';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../core/ctx.ts';
import { subscribeToPush } from '../../actions/push-subscription.ts';
import { notFound } from '../../domain/errors.ts';
import { parsePushSubscription } from '../../domain/push-subscription.ts';
import { TICKET_TOKEN_PATTERN } from '../../domain/ticket-token.ts';
import { customerCtx, findTicketByLink } from '../../actions/customer-link.ts';
import type { RateLimiter } from '../../realtime/limiter.ts';
import type { VapidKeyStore } from '../../channels/vapid.ts';
import { linkLimiter, linkRefused } from './live-limits.ts';
import { hidden, typed } from '../operation.ts';

const WEB_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'web', 'push');
/** The path the customer page loads (LivePagesDeps.pushScript). */
export const PUSH_SCRIPT_PATH = '/push.js';

export type PushRouteDeps = { services: Services; limiter: RateLimiter; vapid: VapidKeyStore };

const TOKEN = new RegExp(TICKET_TOKEN_PATTERN);

export function registerPushRoutes(fastify: FastifyInstance, deps: PushRouteDeps): void {
  const app = typed(fastify);
  const { services, vapid } = deps;
  const { clock, config } = services;
  const limit = linkLimiter(deps.limiter, clock, services.metrics);
  const hide = { schema: { hide: true } };
  const scripts = new Map([
    ['/push.js', readFileSync(path.join(WEB_DIR, 'push.js'), 'utf8')],
    ['/push-sw.js', readFileSync(path.join(WEB_DIR, 'push-sw.js'), 'utf8')],
  ]);

  for (const [url, body] of scripts) {
    app.get(url, hide, async (_req, reply) =>
      reply
        // Revalidated on every load: a service worker's imported script must never go stale.
        .header('cache-control', 'no-cache')
        .header('x-content-type-options', 'nosniff')
        .type('text/javascript; charset=utf-8')
        .send(body),
    );
  }

  app.get('/push/vapid.json', hide, async (_req, reply) => {
    const keys = await vapid.get();
    return reply.header('cache-control', 'no-cache').send({ public_key: keys.publicKey });
  });

  // The body is the browser's PushSubscription, checked by parsePushSubscription; a malformed
  // token is answered like an unknown one, counted against the address (live-limits.ts).
  app.post('/t/:token/push', { schema: hidden({ params: Type.Object({ token: Type.String() }) }) }, async (req, reply) => {
    const { token } = req.params;
    const ticket = TOKEN.test(token) ? await findTicketByLink(services, token) : undefined;
    if (ticket === undefined) {
      if (!(await limit.unknown(req, reply))) throw linkRefused(reply);
      throw notFound('ticket link');
    }
    if (!(await limit.found(reply, `t:${token}`))) throw linkRefused(reply);
    // Validated before anything is written: a bad subscription changes nothing.
    const sub = parsePushSubscription(req.body, config.push.allowInsecureEndpoints);
    const ctx = (await customerCtx(services, ticket, String(req.id)))!;
    const keys = { endpoint: sub.endpoint, p256dh: sub.p256dh, auth: sub.auth };
    await write(ctx, { verb: subscribeToPush, input: { ticketId: ticket.id, keys } });
    return reply
      .code(201)
      .header('cache-control', 'no-store')
      .send({ object: 'push_subscription', subscribed: true, notifications: 'push' });
  });
}
