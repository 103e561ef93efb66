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
import { problemResponses } from '../../schemas.ts';
import { runWrite, type TwoPhase } from '../../write.ts';
import { ctxFor } from './context.ts';
import { TicketIdParams, ticketIdFrom } from './tickets.ts';

const NoBody = Type.Optional(Type.Object({}, { additionalProperties: false, description: 'No body is needed; an empty JSON object is accepted.' }));

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
function ringLookAhead(services: Services): { startEarly: (req: FastifyRequest) => void; settled: (req: FastifyRequest, ctx: Ctx, id: string) => Promise<RingLookAhead> } {
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

  app.post('/tickets/:id/ready', {
    config: { startEarly: look.startEarly },
    schema: {
      tags: ['tickets'], summary: 'Mark a ticket ready and ring the customer', params: TicketIdParams, body: NoBody,
      response: { 200: Type.Ref('RingResult'), ...problemResponses() },
    },
  }, async (req, reply) => {
    const id = ticketId(req.params);
    const ctx = ctxFor(req, services);
    const looked = await look.settled(req, ctx, id);
    return runWrite(req, reply, ctx, { status: 200, run: (tx) => markReady({ ctx: tx, input: { id, look: looked } }), twoPhase: ringPhase(services) });
  });

  app.post('/tickets/:id/ring', {
    config: { startEarly: look.startEarly },
    schema: {
      tags: ['tickets'], summary: 'Ring a ready ticket again (at most once per 10 s)', params: TicketIdParams, body: NoBody,
      response: { 200: Type.Ref('RingResult'), ...problemResponses() },
    },
  }, async (req, reply) => {
    const id = ticketId(req.params);
    const ctx = ctxFor(req, services);
    const looked = await look.settled(req, ctx, id);
    return runWrite(req, reply, ctx, { status: 200, run: (tx) => ringAgain({ ctx: tx, input: { id, look: looked } }), twoPhase: ringPhase(services) });
  });

  app.post('/tickets/:id/collect', {
    schema: { tags: ['tickets'], summary: 'Mark a ticket collected', params: TicketIdParams, body: NoBody, response: { 200: Type.Ref('Ticket'), ...problemResponses() } },
  }, async (req, reply) => {
    const id = ticketId(req.params);
    return runWrite(req, reply, ctxFor(req, services), { status: 200, run: async (ctx) => presentTicket(await collectTicket({ ctx, input: { id } }), publicUrl) });
  });

  app.post('/tickets/:id/cancel', {
    schema: {
      tags: ['tickets'], summary: 'Cancel a ticket', params: TicketIdParams,
      body: Type.Optional(Type.Object({ reason: Type.Optional(Type.String({ maxLength: 200 })) }, { additionalProperties: false })),
      response: { 200: Type.Ref('Ticket'), ...problemResponses() },
    },
  }, async (req, reply) => {
    const id = ticketId(req.params);
    const reason = (req.body as { reason?: string } | undefined)?.reason;
    return runWrite(req, reply, ctxFor(req, services), { status: 200, run: async (ctx) => presentTicket(await cancelTicket({ ctx, input: { id, reason } }), publicUrl) });
  });
}
