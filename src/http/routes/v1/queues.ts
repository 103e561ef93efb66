import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import type { Services } from '../../../core/ctx.ts';
import { createQueue, listQueueViews, removeQueue, updateQueue, type QueueView } from '../../../actions/queues.ts';
import { iso } from '../../../contract/present.ts';
import { QueueName, type QueueObject } from '../../../contract/schemas.ts';
import { ListOf } from '../../../contract/schema-parts.ts';
import { operation, typed } from '../../operation.ts';
import { runWrite } from '../../write.ts';
import { ctxFor } from './context.ts';

const present = (q: QueueView): QueueObject => ({
  object: 'queue',
  name: q.name,
  is_default: q.isDefault,
  open_tickets: q.openTickets,
  created_at: iso(q.createdAt)!,
});
const NameParams = Type.Object({ name: Type.String({ maxLength: 64, examples: ['A'] }) });
const Deleted = Type.Object({ object: Type.Literal('queue'), name: Type.String({ examples: ['A'] }), deleted: Type.Literal(true) });

export function registerQueueRoutes(fastify: FastifyInstance, services: Services): void {
  const app = typed(fastify);
  app.get(
    '/queues',
    {
      schema: operation({
        operationId: 'listQueues',
        tag: 'Queues',
        summary: 'List queues',
        description: "Every queue of the branch, with how many tickets are open in it in the key's mode.",
        answers: { 200: { description: 'Every queue', schema: ListOf(Type.Ref('Queue'), 'By name') } },
      }),
    },
    async (req) => {
      const queues = await listQueueViews({ ctx: ctxFor(req, services), input: undefined });
      return { object: 'list', has_more: false, data: queues.map(present) };
    },
  );

  app.post(
    '/queues',
    {
      schema: operation({
        operationId: 'createQueue',
        tag: 'Queues',
        summary: 'Create a queue',
        description: 'Its tickets are numbered `<name>-1`, `<name>-2`, … each business day.',
        body: Type.Object({ name: QueueName }, { additionalProperties: false }),
        answers: { 201: { description: 'The new queue', schema: Type.Ref('Queue') } },
        problems: { conflict: 'A queue of that name exists.', forbidden: 'A staff session needs the manager or owner role.' },
      }),
    },
    async (req, reply) => {
      return runWrite(req, reply, ctxFor(req, services), { status: 201, verb: createQueue, input: req.body, present });
    },
  );

  app.patch(
    '/queues/:name',
    {
      schema: operation({
        operationId: 'updateQueue',
        tag: 'Queues',
        summary: 'Update a queue',
        description: 'Rename it (only while it has no open ticket: their numbers carry its name), or make it the default.',
        params: NameParams,
        body: Type.Object(
          {
            name: Type.Optional(QueueName),
            is_default: Type.Optional(
              Type.Boolean({
                description: 'true: tickets created without a queue go here. A branch setting: a live key (or live mode) only',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        answers: { 200: { description: 'The queue as it is now', schema: Type.Ref('Queue') } },
        problems: {
          conflict: 'The new name is taken, or the queue has open tickets.',
          forbidden: 'A staff session without the manager or owner role; or `is_default` sent with a test key or in test mode.',
        },
      }),
    },
    async (req, reply) => {
      const { name } = req.params;
      const body = req.body ?? {};
      return runWrite(req, reply, ctxFor(req, services), {
        status: 200,
        verb: updateQueue,
        input: { name, new_name: body.name, is_default: body.is_default },
        present,
      });
    },
  );

  app.delete(
    '/queues/:name',
    {
      schema: operation({
        operationId: 'deleteQueue',
        tag: 'Queues',
        summary: 'Delete a queue',
        description: 'Only a queue with no open ticket (in either mode) that is not the default.',
        params: NameParams,
        answers: { 200: { description: 'The queue is gone', schema: Deleted } },
        problems: {
          conflict: 'The queue is the default, or has open tickets.',
          forbidden: 'A staff session needs the manager or owner role.',
        },
      }),
    },
    async (req, reply) => {
      const { name } = req.params;
      return runWrite(req, reply, ctxFor(req, services), {
        status: 200,
        verb: removeQueue,
        input: { name },
        present: (gone): Static<typeof Deleted> => ({ object: 'queue', name: gone.name, deleted: true }),
      });
    },
  );
}
