// ready, ring, collect, cancel. Ready and ring are two-phase writes: the transition, ring row and
// outbox job commit first; then the in-line ring attempt runs under the ring deadline; then its
// outcome and the stored idempotent answer commit together. When the ringer's look-ahead finds
// nobody to reach, the first transaction already holds the answer and is the whole write.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Ctx, Services } from '../../../actions/ctx.ts';
import { durableStartedRing, markReady, ringAgain, RingLookAhead, type StartedRing } from '../../../actions/ring-ticket.ts';
import { attemptRing } from '../../../actions/perform-ring.ts';
import { cancelTicket, collectTicket } from '../../../actions/close-ticket.ts';
import { presentTicket } from '../../../actions/present.ts';
import { isId } from '../../../domain/ids.ts';
import { operation } from '../../operation.ts';
import { EXAMPLE_RING_RESULT, EXAMPLE_TICKETS } from '../../example-objects.ts';
import { runWrite, type TwoPhase } from '../../write.ts';
import { ctxFor } from './context.ts';
import { TicketIdParams, ticketIdFrom } from './tickets.ts';

const NoBody = Type.Optional(
  Type.Object({}, { additionalProperties: false, description: 'No body is needed; an empty JSON object is accepted.' }),
);

function ringPhase(services: Services): TwoPhase<StartedRing> {
  return {
    after: (ctx: Ctx, started) => attemptRing(ctx, started, services.config.ring.inlineDeadlineMs),
    keep: durableStartedRing,
    done: (started) => started.answer,
  };
}

/**
 * Who is connected, looked up before the request's transaction (see RingLookAhead). Started as
 * the rate limit is asked (startEarly), so its Redis round trip is not paid after that one.
 */
function ringLookAhead(services: Services): {
  startEarly: (req: FastifyRequest) => void;
  settled: (req: FastifyRequest, ctx: Ctx, id: string) => Promise<RingLookAhead>;
} {
  const started = new WeakMap<FastifyRequest, RingLookAhead>();
  const start = (ctx: Pick<Ctx, 'branchId' | 'mode'>, ticketId: string): RingLookAhead =>
    new RingLookAhead(services.ringer, { ticketId, branchId: ctx.branchId, mode: ctx.mode });
  return {
    startEarly(req) {
      const { id } = req.params as { id?: string };
      if (req.auth !== null && typeof id === 'string' && isId('ticket', id)) started.set(req, start(req.auth, id));
    },
    async settled(req, ctx, id) {
      const look = started.get(req) ?? start(ctx, id);
      await look.settled;
      return look;
    },
  };
}

function ticketId(params: unknown): string {
  return ticketIdFrom((params as { id: string }).id);
}

export function registerTicketActionRoutes(app: FastifyInstance, services: Services): void {
  const { publicUrl } = services.config;
  const look = ringLookAhead(services);

  app.post(
    '/tickets/:id/ready',
    {
      config: { startEarly: look.startEarly },
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
      const id = ticketId(req.params);
      const ctx = ctxFor(req, services);
      const looked = await look.settled(req, ctx, id);
      return runWrite(req, reply, ctx, {
        status: 200,
        run: (tx) => markReady({ ctx: tx, input: { id, look: looked } }),
        twoPhase: ringPhase(services),
      });
    },
  );

  app.post(
    '/tickets/:id/ring',
    {
      config: { startEarly: look.startEarly },
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
      const id = ticketId(req.params);
      const ctx = ctxFor(req, services);
      const looked = await look.settled(req, ctx, id);
      return runWrite(req, reply, ctx, {
        status: 200,
        run: (tx) => ringAgain({ ctx: tx, input: { id, look: looked } }),
        twoPhase: ringPhase(services),
      });
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
      const id = ticketId(req.params);
      return runWrite(req, reply, ctxFor(req, services), {
        status: 200,
        run: async (ctx) => presentTicket(await collectTicket({ ctx, input: { id } }), publicUrl),
      });
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
      const id = ticketId(req.params);
      const reason = (req.body as { reason?: string } | undefined)?.reason;
      return runWrite(req, reply, ctxFor(req, services), {
        status: 200,
        run: async (ctx) => presentTicket(await cancelTicket({ ctx, input: { id, reason } }), publicUrl),
      });
    },
  );
}
