// GET/POST /v1/displays, DELETE /v1/displays/{id}: display board links (PRODUCT.md §3, §11).
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../../actions/ctx.ts';
import { createDisplay, deleteDisplay } from '../../../actions/displays.ts';
import { iso } from '../../../actions/present.ts';
import { notFound } from '../../../domain/errors.ts';
import { isId } from '../../../domain/ids.ts';
import { listDisplays, type Display } from '../../../store/displays.ts';
import { problemResponses, QueueName, Timestamp } from '../../schemas.ts';
import { runWrite } from '../../write.ts';
import { ctxFor } from './context.ts';

export const DisplaySchema = Type.Object({
  object: Type.Literal('display'),
  id: Type.String({ pattern: '^dsp_' }),
  name: Type.String(),
  queues: Type.Array(Type.String(), { description: 'Queues shown; empty: every queue of the branch' }),
  voice: Type.Boolean({ description: 'Whether the board calls numbers out loud' }),
  url: Type.String({ format: 'uri', description: 'The board link to open on the TV (a secret: anyone with it sees the numbers)' }),
  livemode: Type.Boolean(),
  created_at: Timestamp,
});

const CreateBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 64, default: 'Display board' })),
    queues: Type.Optional(Type.Array(QueueName, { maxItems: 32, default: [], description: 'Empty or absent: every queue' })),
    voice: Type.Optional(Type.Boolean({ default: true })),
  },
  { additionalProperties: false },
);

const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

export function presentDisplay(d: Display, publicUrl: string) {
  return {
    object: 'display' as const, id: d.id, name: d.name, queues: d.queues, voice: d.voice, url: `${publicUrl}/board/${d.token}`,
    livemode: d.mode === 'live', created_at: iso(d.createdAt)!,
  };
}

export function registerDisplayRoutes(app: FastifyInstance, services: Services): void {
  const { publicUrl } = services.config;

  app.get('/displays', {
    schema: {
      tags: ['displays'], summary: 'List display boards',
      response: { 200: Type.Object({ object: Type.Literal('list'), data: Type.Array(DisplaySchema), has_more: Type.Boolean() }), ...problemResponses() },
    },
  }, async (req) => {
    const ctx = ctxFor(req, services);
    const list = await listDisplays(services.db, ctx.branchId, ctx.mode);
    return { object: 'list', data: list.map((d) => presentDisplay(d, publicUrl)), has_more: false };
  });

  app.post('/displays', {
    schema: { tags: ['displays'], summary: 'Create a display board link', body: CreateBody, response: { 201: DisplaySchema, ...problemResponses() } },
  }, async (req, reply) => {
    const body = (req.body ?? {}) as { name?: string; queues?: string[]; voice?: boolean };
    const input = { name: body.name ?? 'Display board', queues: body.queues ?? [], voice: body.voice ?? true };
    return runWrite(req, reply, ctxFor(req, services), { status: 201, run: async (ctx) => presentDisplay(await createDisplay({ ctx, input }), publicUrl) });
  });

  app.delete('/displays/:id', {
    schema: {
      tags: ['displays'], summary: 'Delete a display board (its link stops working at once)', params: IdParams,
      response: { 200: Type.Object({ object: Type.Literal('display'), id: Type.String(), deleted: Type.Literal(true) }), ...problemResponses() },
    },
  }, async (req, reply) => {
    const { id } = req.params as { id: string };
    if (!isId('display', id)) throw notFound('display');
    return runWrite(req, reply, ctxFor(req, services), {
      status: 200,
      run: async (ctx) => ({ object: 'display', id: (await deleteDisplay({ ctx, input: { id } })).id, deleted: true }),
    });
  });
}
