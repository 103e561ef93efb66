import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../../core/ctx.ts';
import { listEventPage, readEvent } from '../../../actions/read-events.ts';
import { EXAMPLE_IDS, EXAMPLE_TIME, IdParam, ListOf } from '../../../contract/schema-parts.ts';
import { operation, typed } from '../../operation.ts';
import { exampleEvent } from '../../../contract/example-objects.ts';
import { ctxFor } from './context.ts';

/** Events are sent as stored, byte for byte: the bodies webhooks deliver. */
const sendJson = (reply: FastifyReply, json: string): FastifyReply => reply.type('application/json; charset=utf-8').send(json);

const EVENTS_NOTE =
  'Each event is sent exactly as it was stored and as webhooks deliver it. New event types may appear within v1: ignore the ones you do not know.';

export function registerEventRoutes(fastify: FastifyInstance, services: Services): void {
  const app = typed(fastify);
  app.get(
    '/events',
    {
      schema: operation({
        operationId: 'listEvents',
        tag: 'Events',
        summary: 'List events',
        description: `Newest first; events are kept 30 days. To catch up after downtime, page with \`starting_after\` while \`has_more\` is true. ${EVENTS_NOTE}`,
        querystring: Type.Object(
          {
            type: Type.Optional(
              Type.String({ maxLength: 500, description: 'One type or a comma list', examples: ['ticket.ready,ticket.rung'] }),
            ),
            created_after: Type.Optional(Type.String({ format: 'date-time', examples: [EXAMPLE_TIME] })),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20, examples: [20] })),
            starting_after: Type.Optional(
              Type.String({ maxLength: 64, description: 'Cursor: the last event id of the previous page', examples: [EXAMPLE_IDS.event] }),
            ),
          },
          { additionalProperties: false },
        ),
        answers: {
          // Each event's whole example is in components/examples, as its webhook and GET /v1/events/{id} show it.
          200: { description: 'A page of events', schema: ListOf(Type.Ref('Event'), 'Newest first') },
        },
      }),
    },
    async (req, reply) => {
      const q = req.query;
      const input = {
        types: q.type
          ?.split(',')
          .map((t) => t.trim())
          .filter(Boolean),
        createdAfter: q.created_after === undefined ? undefined : Date.parse(q.created_after),
        startingAfter: q.starting_after,
        limit: q.limit ?? 20,
      };
      const page = await listEventPage({ ctx: ctxFor(req, services), input });
      return sendJson(reply, `{"object":"list","data":[${page.data.join(',')}],"has_more":${page.hasMore}}`);
    },
  );

  app.get(
    '/events/:id',
    {
      schema: operation({
        operationId: 'getEvent',
        tag: 'Events',
        summary: 'Get an event',
        description: `An event of the last 30 days. ${EVENTS_NOTE}`,
        params: Type.Object({ id: IdParam('event') }),
        answers: { 200: { description: 'The event', schema: Type.Ref('Event'), example: exampleEvent('ticket.rung') } },
      }),
    },
    async (req, reply) => {
      return sendJson(reply, await readEvent({ ctx: ctxFor(req, services), input: { id: req.params.id } }));
    },
  );
}
