// GET/POST /v1/announcements, DELETE /v1/announcements/{id} (PRODUCT.md §3).
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import type { Services } from '../../../core/ctx.ts';
import { ANNOUNCEMENT_LIMITS, createAnnouncement, deleteAnnouncement, listAnnouncements } from '../../../actions/announcements.ts';
import { iso } from '../../../contract/present.ts';
import { notFound } from '../../../domain/errors.ts';
import { isId } from '../../../domain/ids.ts';
import { Id, IdParam, ListOf, Ref } from '../../../contract/schema-parts.ts';
import { AnnouncementSchema, type AnnouncementObject } from '../../../contract/staff-schemas.ts';
import { operation, typed } from '../../operation.ts';
import { runWrite } from '../../write.ts';
import { ctxFor } from './context.ts';

const Deleted = Type.Object({ object: Type.Literal('announcement'), id: Id('announcement'), deleted: Type.Literal(true) });

const L = ANNOUNCEMENT_LIMITS;
const CreateBody = Type.Object(
  {
    message: Type.String({
      minLength: 1,
      maxLength: L.maxLength,
      pattern: '\\S',
      description: `Shown on waiting customer pages and boards; at most ${L.maxLength} characters`,
      examples: ['The kitchen is running 10 minutes late'],
    }),
    expires_in: Type.Optional(
      Type.Integer({
        minimum: L.minExpiresIn,
        maximum: L.maxExpiresIn,
        default: L.defaultExpiresIn,
        description: 'Seconds until it disappears',
        examples: [1800],
      }),
    ),
  },
  { additionalProperties: false },
);

type Announcement = Awaited<ReturnType<typeof listAnnouncements>>[number];

const present = (a: Announcement): AnnouncementObject => ({
  object: 'announcement',
  id: a.id,
  message: a.message,
  livemode: a.mode === 'live',
  created_at: iso(a.createdAt)!,
  expires_at: iso(a.expiresAt)!,
});

export function registerAnnouncementRoutes(fastify: FastifyInstance, services: Services): void {
  const app = typed(fastify);
  app.get(
    '/announcements',
    {
      schema: operation({
        operationId: 'listAnnouncements',
        tag: 'Announcements',
        summary: 'List announcements',
        description: 'The announcements showing now, newest first.',
        answers: { 200: { description: 'Every announcement showing now', schema: ListOf(Ref(AnnouncementSchema), 'Newest first') } },
      }),
    },
    async (req) => {
      const list = await listAnnouncements({ ctx: ctxFor(req, services), input: undefined });
      return { object: 'list', data: list.map(present), has_more: false };
    },
  );

  app.post(
    '/announcements',
    {
      schema: operation({
        operationId: 'createAnnouncement',
        tag: 'Announcements',
        summary: 'Create an announcement',
        description: "Shows a note on every waiting customer's page and on the display boards until it expires or is taken down.",
        body: CreateBody,
        answers: { 201: { description: 'The announcement, showing', schema: Ref(AnnouncementSchema) } },
      }),
    },
    async (req, reply) => {
      const body = req.body;
      const input = { message: body.message.trim(), expiresIn: body.expires_in ?? L.defaultExpiresIn };
      return runWrite(req, reply, ctxFor(req, services), {
        status: 201,
        verb: createAnnouncement,
        input,
        present,
      });
    },
  );

  app.delete(
    '/announcements/:id',
    {
      schema: operation({
        operationId: 'deleteAnnouncement',
        tag: 'Announcements',
        summary: 'Delete an announcement',
        description: 'Takes it down from the pages and boards at once.',
        params: Type.Object({ id: IdParam('announcement') }),
        answers: { 200: { description: 'The announcement is gone', schema: Deleted } },
      }),
    },
    async (req, reply) => {
      const { id } = req.params;
      if (!isId('announcement', id)) throw notFound('announcement');
      return runWrite(req, reply, ctxFor(req, services), {
        status: 200,
        verb: deleteAnnouncement,
        input: { id },
        present: (gone): Static<typeof Deleted> => ({ object: 'announcement', id: gone.id, deleted: true }),
      });
    },
  );
}
