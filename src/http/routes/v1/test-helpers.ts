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
import { CUSTOMER_ACTIONS, recordCustomerAction, type CustomerActionName } from '../../../actions/customer-action.ts';
import { SNOOZE_MINUTES } from '../../../domain/customer-answer.ts';
import { presentTicket } from '../../../contract/present.ts';
import type { TicketObject } from '../../../contract/schemas.ts';
import { Continuation } from '../../../actions/continuation.ts';
import { simulatedPushSubscription } from '../../../channels/simulated-push.ts';
import { AppError, invalid, notFound } from '../../../domain/errors.ts';
import { isId } from '../../../domain/ids.ts';
import type { ClientSimulator } from '../../../core/client-simulator.ts';
import { SIMULATED_MINUTES } from '../../../realtime/simulated-clients.ts';
import { readDisplay } from '../../../actions/displays.ts';
import { subscribeToPush } from '../../../actions/push-subscription.ts';
import { readTicket } from '../../../actions/read-tickets.ts';
import { IdParam, Ref } from '../../../contract/schema-parts.ts';
import { operation, typed } from '../../operation.ts';
import { EXAMPLE_TICKETS } from '../../../contract/example-objects.ts';
import { runWrite } from '../../write.ts';
import { ctxFor } from './context.ts';
import { presentDisplay, type Display } from './displays.ts';
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
  const simulated = (): ClientSimulator => {
    if (services.simulatedClients === undefined) throw new AppError('unavailable', 'This node runs no simulated pages or boards.');
    return services.simulatedClients;
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
      if (action === 'open_page') {
        const open = openMinutes(minutes);
        // After the view commits and before the answer: once answered, a ring reaches the page.
        const openPage = (ticketId: string): Continuation<TicketObject> =>
          new Continuation(ticketId, async () => {
            const ticket = await readTicket({ ctx, input: { id: ticketId } });
            await simulated().openPage(ticket, open);
            return async () => presentTicket(ticket, publicUrl);
          });
        return runWrite(req, reply, ctx, {
          status: 200,
          run: async (tx) => openPage((await recordCustomerAction({ ctx: tx, input: { ticketId: id, action: 'view' } })).ticket.id),
          resume: (_ctx, saved) => openPage(saved as string),
        });
      }
      return runWrite(req, reply, ctx, {
        status: 200,
        run: async (tx) => {
          if (action === 'subscribe') {
            // The push service readybell simulates: its subscription needs no keys (nothing is encrypted or sent).
            const { endpoint, p256dh, auth } = simulatedPushSubscription(
              { id, branchId: ctx.branchId, mode: ctx.mode },
              services.clock.now(),
            );
            return presentTicket(await subscribeToPush({ ctx: tx, input: { ticketId: id, keys: { endpoint, p256dh, auth } } }), publicUrl);
          }
          const { ticket } = await recordCustomerAction({ ctx: tx, input: { ticketId: id, action, minutes } });
          return presentTicket(ticket, publicUrl);
        },
      });
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
      const connect = (display: Display): Continuation<ReturnType<typeof presentDisplay>> =>
        new Continuation(display, async () => {
          await simulated().connectBoard(display, minutes);
          return async () => presentDisplay(display, publicUrl);
        });
      return runWrite(req, reply, ctxFor(req, services), {
        status: 200,
        run: async (ctx) => {
          return connect(await readDisplay({ ctx, input: { id } }));
        },
        resume: (_ctx, saved) => connect(saved as Display),
      });
    },
  );

  registerSmsTestHelper(app, services);
}
