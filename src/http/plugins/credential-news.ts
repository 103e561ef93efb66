// A committed change to credentials (a key revoked, an account's plan changed by Stripe, a member
// removed) is news for every node's key cache (auth.ts), published on the bus. Every answer this
// node sends meanwhile waits until the bus has taken the message: Redis answers a publish once it
// has handed the message to every subscribed node, so whoever this node tells "done" finds the
// change on any node at their very next request (decision 0084), instead of racing the message
// with the answer. Nothing waits while no such news is in flight.
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../core/ctx.ts';
import { announceCredentialChanges } from '../../actions/api-key-auth.ts';

export function registerCredentialNews(app: FastifyInstance, services: Services): void {
  const news = announceCredentialChanges(services);
  app.addHook('onSend', (_req, _reply, payload, done) => {
    const pending = news.inFlight();
    if (pending === null) return done(null, payload);
    void pending.then(() => done(null, payload));
  });
  app.addHook('onClose', async () => {
    news.stop();
  });
}
