import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../../actions/ctx.ts';
import { getBranch, listQueues } from '../../../store/tenancy.ts';
import { createQueue, removeQueue, updateQueue, type QueueView } from '../../../actions/queues.ts';
import { iso } from '../../../actions/present.ts';
import { listOf, problemResponses, QueueName } from '../../schemas.ts';
import { runWrite } from '../../write.ts';
import { ctxFor } from './context.ts';

const present = (q: QueueView) => ({ object: 'queue' as const, name: q.name, is_default: q.isDefault, open_tickets: q.openTickets, created_at: iso(q.createdAt)! });
const NameParams = Type.Object({ name: Type.String({ maxLength: 64 }) });

export function registerQueueRoutes(app: FastifyInstance, services: Services): void {
  app.get('/queues', {
    schema: { tags: ['queues'], summary: 'List queues', response: { 200: listOf('Queue'), ...problemResponses() } },
  }, async (req) => {
    const ctx = ctxFor(req, services);
    const branch = (await getBranch(services.db, ctx.branchId))!;
    const queues = await listQueues(services.db, ctx.branchId);
    const counts = await services.db.query<{ queue: string; n: number }>(
      'SELECT queue, COUNT(*) AS n FROM tickets WHERE branch_id = $1 AND mode = $2 AND closed_at IS NULL GROUP BY queue',
      [ctx.branchId, ctx.mode],
    );
    const open = new Map(counts.map((c) => [c.queue, Number(c.n)]));
    return {
      object: 'list',
      has_more: false,
      data: queues.map((q) => present({ name: q.name, isDefault: q.name === branch.defaultQueue, openTickets: open.get(q.name) ?? 0, createdAt: q.createdAt })),
    };
  });

  app.post('/queues', {
    schema: {
      tags: ['queues'], summary: 'Create a queue',
      body: Type.Object({ name: QueueName }, { additionalProperties: false }),
      response: { 201: Type.Ref('Queue'), ...problemResponses() },
    },
  }, async (req, reply) => {
    const body = req.body as { name: string };
    return runWrite(req, reply, ctxFor(req, services), { status: 201, run: async (ctx) => present(await createQueue({ ctx, input: body })) });
  });

  app.patch('/queues/:name', {
    schema: {
      tags: ['queues'], summary: 'Rename a queue or make it the default',
      params: NameParams,
      body: Type.Object({ name: Type.Optional(QueueName), is_default: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
      response: { 200: Type.Ref('Queue'), ...problemResponses() },
    },
  }, async (req, reply) => {
    const { name } = req.params as { name: string };
    const body = (req.body ?? {}) as { name?: string; is_default?: boolean };
    return runWrite(req, reply, ctxFor(req, services), {
      status: 200,
      run: async (ctx) => present(await updateQueue({ ctx, input: { name, new_name: body.name, is_default: body.is_default } })),
    });
  });

  app.delete('/queues/:name', {
    schema: {
      tags: ['queues'], summary: 'Delete a queue with no open tickets',
      params: NameParams,
      response: { 200: Type.Object({ object: Type.Literal('queue'), name: Type.String(), deleted: Type.Literal(true) }), ...problemResponses() },
    },
  }, async (req, reply) => {
    const { name } = req.params as { name: string };
    return runWrite(req, reply, ctxFor(req, services), {
      status: 200,
      run: async (ctx) => ({ object: 'queue', name: (await removeQueue({ ctx, input: { name } })).name, deleted: true }),
    });
  });
}
