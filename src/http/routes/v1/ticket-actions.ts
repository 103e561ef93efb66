// ready, ring, collect, cancel, reopen. Ready and ring start their ring in the request's transaction and
// run it right after the commit (src/ring/ready.ts); runWrite commits both and the answer.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Ctx, Services } from '../../../core/ctx.ts';
import { markReady, resumeRing, ringAgain } from '../../../ring/ready.ts';
import { lookAhead, type RingLookAhead } from '../../../ring/look-ahead.ts';
import { cancelTicket, collectTicket } from '../../../actions/close-ticket.ts';
import { reopenTicket } from '../../../actions/reopen-ticket.ts';
import { presentTicket } from '../../../contract/present.ts';
import type { Ticket } from '../../../core/ticket.ts';
import { isId } from '../../../domain/ids.ts';
import { operation, typed } from '../../operation.ts';
import { EXAMPLE_RING_RESULT, EXAMPLE_TICKETS } from '../../../contract/example-objects.ts';
import { earlyWork } from '../../plugins/rate-limit.ts';
import { runWrite } from '../../write.ts';
import { ctxFor, ticketIdFrom } from './context.ts';
import { TicketIdParams } from './tickets.ts';

const NoBody = Type.Optional(
  Type.Object({}, { additionalProperties: false, description: 'No body is needed; an empty JSON object is accepted.' }),
);

export function registerTicketActionRoutes(fastify: FastifyInstance, services: Services): void {
  const app = typed(fastify);
  const { publicUrl } = services.config;
  const asTicket = (ticket: Ticket) => presentTicket(ticket, publicUrl);
  const lookFor = (ctx: Pick<Ctx, 'branchId' | 'mode'>, ticketId: string): Promise<RingLookAhead> =>
    lookAhead(services.ringer, { ticketId, branchId: ctx.branchId, mode: ctx.mode });
  // Who is connected, asked before the transaction, and as the rate limit is asked, so that its
  // Redis round trip is not paid after that one (decision 0006).
  const early = earlyWork((req) => {
    // Before validation, on any request of the route: the id is whatever the path holds.
    const params: unknown = req.params;
    const id = typeof params === 'object' && params !== null && 'id' in params ? params.id : undefined;
    return req.auth !== null && typeof id === 'string' && isId('ticket', id) ? lookFor(req.auth, id) : undefined;
  });

  app.post(
    '/tickets/:id/ready',
    {
      config: { startEarly: early.startEarly },
      schema: operation({
        operationId: 'markTicketReady',
        tag: 'Tickets',
        summary: 'Mark a ticket ready and ring the customer',
        description:
          'Rings every free channel the customer has (their open page, each push subscription) and the display boards showing the queue; ' +
          'SMS only when neither reached them (business plan, a `customer_phone`). Waits for the channels at most `RING_DEADLINE_MS` (2 s by default); ' +
          'what is still under way then finishes in the background and `ticket.rung` reports the final result. Without an Idempotency-Key, ' +
          'a second call still cannot ring twice: it gets `409`.',
        params: TicketIdParams,
        body: NoBody,
        answers: {
          200: {
            description: 'What the ring reached, and the ticket, now `ready`',
            schema: Type.Ref('RingResult'),
            example: EXAMPLE_RING_RESULT,
          },
        },
        problems: { 'ticket-state-conflict': 'Only a `created` ticket can be marked ready; `ticket_status` says what it is.' },
      }),
    },
    async (req, reply) => {
      const id = ticketIdFrom(req.params.id);
      const ctx = ctxFor(req, services);
      const look = await (early.take(req) ?? lookFor(ctx, id));
      return runWrite(req, reply, ctx, { status: 200, verb: markReady, input: { id, look }, resume: resumeRing });
    },
  );

  app.post(
    '/tickets/:id/ring',
    {
      config: { startEarly: early.startEarly },
      schema: operation({
        operationId: 'ringTicket',
        tag: 'Tickets',
        summary: 'Ring a ready ticket again',
        description: 'A recall, for a customer who has not come: rings like `ready` did, at most once every 10 seconds per ticket.',
        params: TicketIdParams,
        body: NoBody,
        answers: {
          200: {
            description: 'What the ring reached, and the ticket',
            schema: Type.Ref('RingResult'),
            example: { ...EXAMPLE_RING_RESULT, call_out_loud: false, ticket: { ...EXAMPLE_TICKETS.ready, rings: 2 } },
          },
        },
        problems: {
          'ticket-state-conflict': 'Only a `ready` ticket can be rung; `ticket_status` says what it is.',
          'rate-limited':
            'The ticket was rung less than 10 seconds ago (`violated_policies: ["ticket-ring"]`), or a bucket of the API key is empty.',
        },
      }),
    },
    async (req, reply) => {
      const id = ticketIdFrom(req.params.id);
      const ctx = ctxFor(req, services);
      const look = await (early.take(req) ?? lookFor(ctx, id));
      return runWrite(req, reply, ctx, { status: 200, verb: ringAgain, input: { id, look }, resume: resumeRing });
    },
  );

  app.post(
    '/tickets/:id/collect',
    {
      schema: operation({
        operationId: 'collectTicket',
        tag: 'Tickets',
        summary: 'Mark a ticket collected',
        description: 'The customer has their order: their page says thank you, and the ticket leaves the display board.',
        params: TicketIdParams,
        body: NoBody,
        answers: { 200: { description: 'The ticket, now `collected`', schema: Type.Ref('Ticket'), example: EXAMPLE_TICKETS.collected } },
        problems: { 'ticket-state-conflict': 'Only a `created` or `ready` ticket can be collected; `ticket_status` says what it is.' },
      }),
    },
    async (req, reply) => {
      const id = ticketIdFrom(req.params.id);
      return runWrite(req, reply, ctxFor(req, services), { status: 200, verb: collectTicket, input: { id }, present: asTicket });
    },
  );

  app.post(
    '/tickets/:id/cancel',
    {
      schema: operation({
        operationId: 'cancelTicket',
        tag: 'Tickets',
        summary: 'Cancel a ticket',
        description: "The order will not be served: the customer's page says it was cancelled, and the ticket leaves the display board.",
        params: TicketIdParams,
        body: Type.Optional(
          Type.Object(
            {
              reason: Type.Optional(
                Type.String({ maxLength: 200, description: "Kept as the ticket's `cancellation_reason`", examples: ['Out of stock'] }),
              ),
            },
            { additionalProperties: false },
          ),
        ),
        answers: { 200: { description: 'The ticket, now `cancelled`', schema: Type.Ref('Ticket'), example: EXAMPLE_TICKETS.cancelled } },
        problems: { 'ticket-state-conflict': 'Only a `created` or `ready` ticket can be cancelled; `ticket_status` says what it is.' },
      }),
    },
    async (req, reply) => {
      const id = ticketIdFrom(req.params.id);
      const reason = req.body?.reason;
      return runWrite(req, reply, ctxFor(req, services), { status: 200, verb: cancelTicket, input: { id, reason }, present: asTicket });
    },
  );

  app.post(
    '/tickets/:id/reopen',
    {
      schema: operation({
        operationId: 'reopenTicket',
        tag: 'Tickets',
        summary: 'Bring back a cancelled or collected ticket',
        description:
          'Undoes a cancel or a collect made by mistake, while the customer page still opens (24 hours after the close): the ticket is ' +
          '`ready` again if it had been made ready, else `created`, with its number and link, and the board shows it again. ' +
          'The phone number and push subscriptions erased at the close are not brought back (no SMS for it any more); ' +
          'the customer page, once opened or reloaded, follows the ticket again and rings on the page. An expired ticket cannot be reopened.',
        params: TicketIdParams,
        body: NoBody,
        answers: {
          200: { description: 'The ticket, open again', schema: Type.Ref('Ticket'), example: EXAMPLE_TICKETS.created },
        },
        problems: {
          'ticket-state-conflict':
            'Only a `cancelled` or `collected` ticket closed in the last 24 hours can be reopened; `ticket_status` says what it is.',
          conflict: 'Another open ticket of the queue has the same number now (a new business day began).',
        },
      }),
    },
    async (req, reply) => {
      const id = ticketIdFrom(req.params.id);
      return runWrite(req, reply, ctxFor(req, services), { status: 200, verb: reopenTicket, input: { id }, present: asTicket });
    },
  );
}
