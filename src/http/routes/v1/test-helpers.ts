// POST /v1/test_helpers/tickets/{id}/customer/{action}: play the customer in test mode. It calls
// the very action the customer page calls, so events, webhooks and live updates are the real ones.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../../actions/ctx.ts';
import { CUSTOMER_ACTIONS, recordCustomerAction, SNOOZE_MINUTES, type CustomerActionName } from '../../../actions/customer-action.ts';
import { presentTicket } from '../../../actions/present.ts';
import { AppError, invalid, notFound } from '../../../domain/errors.ts';
import { problemResponses } from '../../schemas.ts';
import { runWrite } from '../../write.ts';
import { ctxFor } from './context.ts';
import { ticketIdFrom } from './tickets.ts';

const Body = Type.Optional(Type.Object(
  { minutes: Type.Optional(Type.Integer({ description: `snooze only: ${SNOOZE_MINUTES.min}–${SNOOZE_MINUTES.max}, default ${SNOOZE_MINUTES.default}` })) },
  { additionalProperties: false },
));

export function registerTestHelperRoutes(app: FastifyInstance, services: Services): void {
  const { publicUrl } = services.config;
  app.post('/test_helpers/tickets/:id/customer/:action', {
    schema: {
      tags: ['test helpers'],
      summary: 'Act as the customer (test mode only)',
      description: `\`action\` is one of ${CUSTOMER_ACTIONS.map((a) => `\`${a}\``).join(', ')}. Does exactly what the customer page does, events and webhooks included. A live key gets 403.`,
      params: Type.Object({ id: Type.String({ maxLength: 64 }), action: Type.String({ maxLength: 32 }) }),
      body: Body,
      response: { 200: Type.Ref('Ticket'), ...problemResponses() },
    },
    // Before the body is validated: a live key is refused whatever it sends.
    preValidation: async (req) => {
      if (req.auth?.mode !== 'test') throw new AppError('forbidden', 'Test helpers work only with a test key (rk_test_…); they never touch live tickets.');
    },
  }, async (req, reply) => {
    const { id, action } = req.params as { id: string; action: string };
    if (!(CUSTOMER_ACTIONS as readonly string[]).includes(action)) throw notFound(`test helper action "${action}" (use ${CUSTOMER_ACTIONS.join(', ')})`);
    const minutes = (req.body as { minutes?: number } | undefined)?.minutes;
    if (minutes !== undefined && action !== 'snooze') throw invalid('/minutes', 'minutes applies to snooze only.');
    ticketIdFrom(id);
    return runWrite(req, reply, ctxFor(req, services), {
      status: 200,
      run: async (ctx) => presentTicket((await recordCustomerAction({ ctx, input: { ticketId: id, action: action as CustomerActionName, minutes } })).ticket, publicUrl),
    });
  });
}
