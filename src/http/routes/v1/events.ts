import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../../actions/ctx.ts';
import { invalid, notFound } from '../../../domain/errors.ts';
import { isId } from '../../../domain/ids.ts';
import { getEventBody, listEventBodies } from '../../../store/outbox.ts';
import { problemResponses } from '../../schemas.ts';
import { ctxFor } from './context.ts';

const EventSchema = Type.Object({
  id: Type.String(), object: Type.Literal('event'), type: Type.String(), created_at: Type.String(), livemode: Type.Boolean(),
  api_version: Type.String(), branch: Type.String(), data: Type.Record(Type.String(), Type.Unknown()),
  request: Type.Union([Type.Null(), Type.Object({ id: Type.String(), idempotency_key: Type.Union([Type.String(), Type.Null()]) })]),
}, { additionalProperties: true });

const json = (s: string): unknown => JSON.parse(s);

export function registerEventRoutes(app: FastifyInstance, services: Services): void {
  app.get('/events', {
    schema: {
      tags: ['events'], summary: 'List events, newest first (kept 30 days)',
      querystring: Type.Object({
        type: Type.Optional(Type.String({ maxLength: 500, description: 'One type or a comma list' })),
        created_after: Type.Optional(Type.String({ format: 'date-time' })),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
        starting_after: Type.Optional(Type.String({ maxLength: 64 })),
      }, { additionalProperties: false }),
      response: { 200: Type.Object({ object: Type.Literal('list'), data: Type.Array(EventSchema), has_more: Type.Boolean() }), ...problemResponses() },
    },
  }, async (req) => {
    const ctx = ctxFor(req, services);
    const q = req.query as { type?: string; created_after?: string; limit?: number; starting_after?: string };
    if (q.starting_after !== undefined && (!isId('event', q.starting_after) || (await getEventBody(services.db, ctx.branchId, ctx.mode, q.starting_after)) === undefined)) {
      throw invalid('/query/starting_after', 'starting_after must be the id of an event of this branch and mode.');
    }
    const page = await listEventBodies(services.db, ctx.branchId, ctx.mode, {
      types: q.type?.split(',').map((t) => t.trim()).filter(Boolean),
      createdAfter: q.created_after === undefined ? undefined : Date.parse(q.created_after),
      startingAfter: q.starting_after,
      limit: q.limit ?? 20,
    });
    return { object: 'list', data: page.data.map(json), has_more: page.hasMore };
  });

  app.get('/events/:id', {
    schema: { tags: ['events'], summary: 'Get an event', params: Type.Object({ id: Type.String({ maxLength: 64 }) }), response: { 200: EventSchema, ...problemResponses() } },
  }, async (req) => {
    const ctx = ctxFor(req, services);
    const { id } = req.params as { id: string };
    const body = isId('event', id) ? await getEventBody(services.db, ctx.branchId, ctx.mode, id) : undefined;
    if (body === undefined) throw notFound('event');
    return json(body);
  });
}
