// Test mode's stand-ins for the people and devices a ring reaches, so that every answer of `ready`
// can be produced with a test key alone (decision 0018):
// - POST /v1/test_helpers/tickets/{id}/customer/{action}: play the customer. It calls the very
//   action the customer page calls, so events, webhooks and live updates are the real ones.
//   `subscribe` also subscribes the customer to the push service readybell simulates, and
//   `open_page` keeps a page readybell simulates open, which confirms rings as a browser would.
// - POST /v1/test_helpers/displays/{id}/connect: a board of the display, connected with sound on.
// - POST /v1/test_helpers/tickets/{id}/sms_reply: the customer texts back (test-helpers-sms.ts).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../../core/ctx.ts';
import { CUSTOMER_ACTIONS, type CustomerActionName } from '../../../actions/customer-action.ts';
import {
  actAsCustomer,
  connectTestBoard,
  openTestPage,
  resumeConnectTestBoard,
  resumeOpenTestPage,
} from '../../../actions/test-helpers.ts';
import type { Ticket } from '../../../core/ticket.ts';
import { SNOOZE_MINUTES } from '../../../domain/customer-answer.ts';
import { presentTicket } from '../../../contract/present.ts';
import { simulatedPushSubscription } from '../../../channels/simulated-push.ts';
import { AppError, invalid, notFound } from '../../../domain/errors.ts';
import { isId } from '../../../domain/ids.ts';
import { SIMULATED_MINUTES } from '../../../realtime/simulated-clients.ts';
import { IdParam, Ref } from '../../../contract/schema-parts.ts';
import { operation, typed } from '../../operation.ts';
import { EXAMPLE_TICKETS } from '../../../contract/example-objects.ts';
import { runWrite } from '../../write.ts';
import { ctxFor } from './context.ts';
import { presentDisplay } from './displays.ts';
import { DisplaySchema } from '../../../contract/staff-schemas.ts';
import { ticketIdFrom } from './context.ts';
import { registerSmsTestHelper } from './test-helpers-sms.ts';

type HelperAction = CustomerActionName | 'open_page';
const HELPER_ACTIONS: readonly HelperAction[] = [...CUSTOMER_ACTIONS, 'open_page'];
const isHelperAction = (a: string): a is HelperAction => (HELPER_ACTIONS as readonly string[]).includes(a);

const span = (m: { min: number; max: number; default: number }): string => `${m.min}–${m.max}, default ${m.default}`;

const CustomerBody = Type.Optional(
  Type.Object(
    {
      minutes: Type.Optional(
        Type.Integer({
          description: `snooze: the snooze (${span(SNOOZE_MINUTES)}); open_page: how long the page stays open (${span(SIMULATED_MINUTES)})`,
          examples: [SNOOZE_MINUTES.default],
        }),
      ),
    },
    { additionalProperties: false },
  ),
);

const ConnectBody = Type.Optional(
  Type.Object(
    {
      minutes: Type.Optional(
        Type.Integer({
          minimum: SIMULATED_MINUTES.min,
          maximum: SIMULATED_MINUTES.max,
          description: `How long the board stays connected (${span(SIMULATED_MINUTES)})`,
          examples: [SIMULATED_MINUTES.default],
        }),
      ),
    },
    { additionalProperties: false },
  ),
);

function openMinutes(minutes: number | undefined): number {
  if (minutes === undefined) return SIMULATED_MINUTES.default;
  if (minutes < SIMULATED_MINUTES.min || minutes > SIMULATED_MINUTES.max) {
    throw invalid('/minutes', `A simulated page stays open ${SIMULATED_MINUTES.min} to ${SIMULATED_MINUTES.max} whole minutes.`);
  }
  return minutes;
}

export function registerTestHelperRoutes(fastify: FastifyInstance, services: Services): void {
  const app = typed(fastify);
  const { config } = services;
  const { publicUrl } = config;
  // Before the body is validated: a live key is refused whatever it sends.
  const testKeysOnly = async (req: FastifyRequest): Promise<void> => {
    if (req.auth?.mode !== 'test')
      throw new AppError('forbidden', 'Test helpers work only with a test key (rk_test_…); they never touch live tickets.');
  };

  app.post(
    '/test_helpers/tickets/:id/customer/:action',
    {
      schema: operation({
        operationId: 'actAsCustomer',
        tag: 'Test helpers',
        summary: 'Act as the customer',
        description:
          `Test mode only: does exactly what the customer's tap on their page does, events and webhooks included. \`action\` is one of ${HELPER_ACTIONS.map((a) => `\`${a}\``).join(', ')}. ` +
          '`view`: opens the link; `subscribe`: turns notifications on through the push service readybell simulates, so a ring then reaches the customer by `push`; ' +
          '`acknowledge`: "On my way" after a ring; `snooze`: "Need N more minutes" (`minutes`); ' +
          '`open_page` opens the ticket page (recording the first view) and keeps it open for `minutes`: a ring then reaches it as `page`.',
        params: Type.Object({
          id: IdParam('ticket'),
          // Not an enum: an unknown action is a 404 naming the ones there are.
          action: Type.String({ maxLength: 32, description: `One of ${HELPER_ACTIONS.join(', ')}`, examples: ['acknowledge'] }),
        }),
        body: CustomerBody,
        answers: {
          200: { description: "The ticket after the customer's action", schema: Type.Ref('Ticket'), example: EXAMPLE_TICKETS.acknowledged },
        },
        problems: {
          forbidden: 'A live key: test helpers never touch live tickets.',
          'not-found': 'No such ticket, or no such action.',
          'ticket-state-conflict': "The ticket's status does not allow the action (e.g. `acknowledge` before it is ready).",
        },
      }),
      preValidation: testKeysOnly,
    },
    async (req, reply) => {
      const { id, action } = req.params;
      if (!isHelperAction(action)) throw notFound(`test helper action "${action}" (use ${HELPER_ACTIONS.join(', ')})`);
      const minutes = req.body?.minutes;
      if (minutes !== undefined && action !== 'snooze' && action !== 'open_page')
        throw invalid('/minutes', 'minutes applies to snooze and open_page only.');
      ticketIdFrom(id);
      const ctx = ctxFor(req, services);
      const present = (ticket: Ticket) => presentTicket(ticket, publicUrl);
      if (action === 'open_page') {
        // After the view commits and before the answer: once answered, a ring reaches the page.
        return runWrite(req, reply, ctx, {
          status: 200,
          verb: openTestPage,
          input: { ticketId: id, minutes: openMinutes(minutes) },
          resume: resumeOpenTestPage,
          present,
        });
      }
      // The push service readybell simulates: its subscription needs no keys (nothing is encrypted or sent).
      const simulatedKeys = () => {
        const { endpoint, p256dh, auth } = simulatedPushSubscription({ id, branchId: ctx.branchId, mode: ctx.mode }, services.clock.now());
        return { endpoint, p256dh, auth };
      };
      const input = { ticketId: id, action, minutes, ...(action === 'subscribe' ? { keys: simulatedKeys() } : {}) };
      return runWrite(req, reply, ctx, { status: 200, verb: actAsCustomer, input, present });
    },
  );

  app.post(
    '/test_helpers/displays/:id/connect',
    {
      schema: operation({
        operationId: 'connectTestDisplay',
        tag: 'Test helpers',
        summary: 'Connect a board of the display, sound on',
        description:
          "Test mode only: a board readybell simulates opens the display's link with sound enabled and stays connected for `minutes`. " +
          'When voice is on for the display and the branch, a ring of a ticket in a queue it shows answers `call_out_loud: true`.',
        params: Type.Object({ id: IdParam('display') }),
        body: ConnectBody,
        answers: { 200: { description: 'The display whose board is now connected', schema: Ref(DisplaySchema) } },
        problems: {
          forbidden: 'A live key: test helpers never touch live displays.',
          'not-found': 'No such display.',
        },
      }),
      preValidation: testKeysOnly,
    },
    async (req, reply) => {
      const { id } = req.params;
      if (!isId('display', id)) throw notFound('display');
      const minutes = req.body?.minutes ?? SIMULATED_MINUTES.default;
      // After the display is found and before the answer: once answered, a ring reaches the board.
      return runWrite(req, reply, ctxFor(req, services), {
        status: 200,
        verb: connectTestBoard,
        input: { id, minutes },
        resume: resumeConnectTestBoard,
        present: (display) => presentDisplay(display, publicUrl),
      });
    },
  );

  registerSmsTestHelper(app, services);
}
