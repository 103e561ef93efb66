// POST /billing/stripe/webhook: Stripe's events (decision 0084), verified with the endpoint's
// signing secret over the raw body, acted on before the answer. Anything unsigned or wrongly
// signed is a 403 problem and changes nothing.
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../core/ctx.ts';
import { receiveStripeWebhook } from '../../billing/webhook.ts';
import { STRIPE_WEBHOOK_PATH } from '../../domain/stripe-config.ts';
import { hidden, typed } from '../operation.ts';

export function registerStripeWebhook(app: FastifyInstance, services: Services): void {
  const scope = typed(app);
  // The signature covers the body's exact bytes: it is kept as received, and parsed by the check.
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));
  scope.post(STRIPE_WEBHOOK_PATH, { schema: hidden() }, async (req, reply) => {
    const header = req.headers['stripe-signature'];
    const raw = typeof req.body === 'string' ? req.body : '';
    const done = await receiveStripeWebhook(services, raw, typeof header === 'string' ? header : undefined);
    req.log.info({ stripe_event: done.type, outcome: done.outcome }, 'Stripe event');
    return reply.code(200).send({ received: true });
  });
}
