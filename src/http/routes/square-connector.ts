// Square's side of the connector, outside /v1 (decision 0073):
// - GET /connectors/square/oauth/callback: Square sends the owner's browser back here with a code
//   and the state; the answer is a 303 to the staff page's Square screen saying how it went;
// - POST /connectors/square/webhook: Square's notifications, verified with the subscription's
//   signature key over the raw body, answered at once (the work is a job). Anything unsigned or
//   wrongly signed is a 403 problem and changes nothing; a merchant no branch is connected to, 404.
import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../core/ctx.ts';
import { finishSquareAuthorize } from '../../connectors/square/oauth.ts';
import { receiveSquareNotification } from '../../connectors/square/notifications.ts';
import { SQUARE_CALLBACK_PATH, SQUARE_WEBHOOK_PATH } from '../../domain/square-config.ts';
import { hidden, typed } from '../operation.ts';
import { readToken } from '../plugins/session.ts';

const Param = Type.Optional(Type.String({ maxLength: 2048 }));
const CallbackQuery = Type.Object({ code: Param, state: Param, error: Param, error_description: Param, response_type: Param });

export function registerSquareConnectorRoutes(app: FastifyInstance, services: Services): void {
  app.register(async (plain) => {
    const scope = typed(plain);
    scope.get(SQUARE_CALLBACK_PATH, { schema: hidden({ querystring: CallbackQuery }) }, async (req, reply) => {
      const { code, state, error } = req.query;
      const to = await finishSquareAuthorize(services, { code, state, error, sessionToken: readToken(req) });
      return reply.header('cache-control', 'no-store').redirect(to, 303);
    });

    // The signature covers the body's exact bytes: it is kept as received, and parsed after the check.
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => done(null, body));
    scope.post(SQUARE_WEBHOOK_PATH, { schema: hidden() }, async (req, reply) => {
      const header = req.headers['x-square-hmacsha256-signature'];
      const raw = typeof req.body === 'string' ? req.body : '';
      const outcome = await receiveSquareNotification(services, raw, typeof header === 'string' ? header : undefined);
      req.log.info({ square_jobs: outcome.jobs, ignored: outcome.ignored }, 'Square notification');
      return reply.code(200).send({ received: true });
    });
  });
}
