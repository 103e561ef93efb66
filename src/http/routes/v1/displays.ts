// GET/POST /v1/displays, DELETE /v1/displays/{id}: display board links (PRODUCT.md §3, §11).
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import type { Services } from '../../../core/ctx.ts';
import { createDisplay, deleteDisplay, listBranchDisplays, MAX_DISPLAYS_PER_BRANCH } from '../../../actions/displays.ts';
import { iso } from '../../../contract/present.ts';
import { notFound } from '../../../domain/errors.ts';
import { isId } from '../../../domain/ids.ts';
import { QueueName } from '../../../contract/schemas.ts';
import { Id, IdParam, ListOf, Ref } from '../../../contract/schema-parts.ts';
import { DisplaySchema, type DisplayObject } from '../../../contract/staff-schemas.ts';
import { operation, typed } from '../../operation.ts';
import { runWrite } from '../../write.ts';
import { ctxFor } from './context.ts';

const CreateBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 64, default: 'Display board', examples: ['Counter TV'] })),
    queues: Type.Optional(Type.Array(QueueName, { maxItems: 32, default: [], description: 'Empty or absent: every queue' })),
    voice: Type.Optional(Type.Boolean({ default: true })),
  },
  { additionalProperties: false },
);

const IdParams = Type.Object({ id: IdParam('display') });
const Deleted = Type.Object({ object: Type.Literal('display'), id: Id('display'), deleted: Type.Literal(true) });

/** A display as the display verbs answer it. */
export type Display = Awaited<ReturnType<typeof listBranchDisplays>>[number];

export function presentDisplay(d: Display, publicUrl: string): DisplayObject {
  return {
    object: 'display',
    id: d.id,
    name: d.name,
    queues: d.queues,
    voice: d.voice,
    url: `${publicUrl}/board/${d.token}`,
    livemode: d.mode === 'live',
    created_at: iso(d.createdAt)!,
  };
}

export function registerDisplayRoutes(fastify: FastifyInstance, services: Services): void {
  const app = typed(fastify);
  const { publicUrl } = services.config;

  app.get(
    '/displays',
    {
      schema: operation({
        operationId: 'listDisplays',
        tag: 'Display boards',
        summary: 'List display boards',
        description: "The branch's board links in the key's mode.",
        answers: { 200: { description: 'Every board', schema: ListOf(Ref(DisplaySchema), 'Oldest first') } },
      }),
    },
    async (req) => {
      const list = await listBranchDisplays({ ctx: ctxFor(req, services), input: undefined });
      return { object: 'list', data: list.map((d) => presentDisplay(d, publicUrl)), has_more: false };
    },
  );

  app.post(
    '/displays',
    {
      schema: operation({
        operationId: 'createDisplay',
        tag: 'Display boards',
        summary: 'Create a display board',
        description:
          'A link to open on the TV by the counter: it shows the numbers being prepared and ready, and (with `voice`) calls them out loud.',
        body: CreateBody,
        answers: { 201: { description: 'The board, with its link', schema: Ref(DisplaySchema) } },
        problems: {
          conflict: `The branch has ${MAX_DISPLAYS_PER_BRANCH} boards in this mode; delete one first.`,
          forbidden: 'A staff session needs the manager or owner role.',
        },
      }),
    },
    async (req, reply) => {
      const body = req.body ?? {};
      const input = { name: body.name ?? 'Display board', queues: body.queues ?? [], voice: body.voice ?? true };
      return runWrite(req, reply, ctxFor(req, services), {
        status: 201,
        verb: createDisplay,
        input,
        present: (display) => presentDisplay(display, publicUrl),
      });
    },
  );

  app.delete(
    '/displays/:id',
    {
      schema: operation({
        operationId: 'deleteDisplay',
        tag: 'Display boards',
        summary: 'Delete a display board',
        description: 'Its link stops working at once.',
        params: IdParams,
        answers: { 200: { description: 'The board is gone', schema: Deleted } },
        problems: { forbidden: 'A staff session needs the manager or owner role.' },
      }),
    },
    async (req, reply) => {
      const { id } = req.params;
      if (!isId('display', id)) throw notFound('display');
      return runWrite(req, reply, ctxFor(req, services), {
        status: 200,
        verb: deleteDisplay,
        input: { id },
        present: (gone): Static<typeof Deleted> => ({ object: 'display', id: gone.id, deleted: true }),
      });
    },
  );
}
