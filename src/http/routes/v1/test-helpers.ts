// POST /v1/test_helpers/tickets/{id}/customer/{action}: play the customer in test mode. It calls
// the very action the customer page calls, so events, webhooks and live updates are the real ones.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../../actions/ctx.ts';
import { CUSTOMER_ACTIONS, recordCustomerAction, SNOOZE_MINUTES, type CustomerActionName } from '../../../actions/customer-action.ts';
import { presentTicket } from '../../../actions/present.ts';
import { AppError, invalid, notFound } from '../../../domain/errors.ts';
import { isId } from '../../../domain/ids.ts';
import { IdParam } from '../../schema-parts.ts';
import { operation } from '../../operation.ts';
import { EXAMPLE_TICKETS } from '../../example-objects.ts';
import { runWrite } from '../../write.ts';
import { ctxFor } from './context.ts';

const Body = Type.Optional(Type.Object(
  { minutes: Type.Optional(Type.Integer({ description: `snooze only: ${SNOOZE_MINUTES.min}–${SNOOZE_MINUTES.max}, default ${SNOOZE_MINUTES.default}`, examples: [SNOOZE_MINUTES.default] })) },
  { additionalProperties: false },
));

export function registerTestHelperRoutes(app: FastifyInstance, services: Services): void {
  const { publicUrl } = services.config;
  app.post('/test_helpers/tickets/:id/customer/:action', {
    schema: operation({
      operationId: 'actAsCustomer', tag: 'Test helpers', summary: 'Act as the customer',
      description: 'Test mode only: does exactly what the customer\'s tap on their page does, events and webhooks included. `view`: opens the link; '
        + '`subscribe`: turns on notifications; `acknowledge`: "On my way" after a ring; `snooze`: "Need N more minutes" (`minutes`).',
      params: Type.Object({
        id: IdParam('ticket'),
        // Not an enum: an unknown action is a 404 naming the ones there are.
        action: Type.String({ maxLength: 32, description: `One of ${CUSTOMER_ACTIONS.join(', ')}`, examples: ['acknowledge'] }),
      }),
      body: Body,
      answers: { 200: { description: 'The ticket after the customer\'s action', schema: Type.Ref('Ticket'), example: EXAMPLE_TICKETS.acknowledged } },
      problems: {
        forbidden: 'A live key: test helpers never touch live tickets.',
        'not-found': 'No such ticket, or no such action.',
        'ticket-state-conflict': 'The ticket\'s status does not allow the action (e.g. `acknowledge` before it is ready).',
      },
    }),
    // Before the body is validated: a live key is refused whatever it sends.
    preValidation: async (req) => {
      if (req.auth?.mode !== 'test') throw new AppError('forbidden', 'Test helpers work only with a test key (rk_test_…); they never touch live tickets.');
    },
  }, async (req, reply) => {
    const { id, action } = req.params as { id: string; action: string };
    if (!(CUSTOMER_ACTIONS as readonly string[]).includes(action)) throw notFound(`test helper action "${action}" (use ${CUSTOMER_ACTIONS.join(', ')})`);
    const minutes = (req.body as { minutes?: number } | undefined)?.minutes;
    if (minutes !== undefined && action !== 'snooze') throw invalid('/minutes', 'minutes applies to snooze only.');
    if (!isId('ticket', id)) throw notFound('ticket');
    return runWrite(req, reply, ctxFor(req, services), {
      status: 200,
      run: async (ctx) => presentTicket((await recordCustomerAction({ ctx, input: { ticketId: id, action: action as CustomerActionName, minutes } })).ticket, publicUrl),
    });
  });
}
