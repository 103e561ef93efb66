// GET/POST /v1/announcements, DELETE /v1/announcements/{id} (PRODUCT.md §3).
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../../actions/ctx.ts';
import { ANNOUNCEMENT_LIMITS, createAnnouncement, deleteAnnouncement } from '../../../actions/announcements.ts';
import { iso } from '../../../actions/present.ts';
import { notFound } from '../../../domain/errors.ts';
import { isId } from '../../../domain/ids.ts';
import { listActiveAnnouncements, type Announcement } from '../../../store/announcements.ts';
import { problemResponses, Timestamp } from '../../schemas.ts';
import { runWrite } from '../../write.ts';
import { ctxFor } from './context.ts';

const AnnouncementSchema = Type.Object({
  object: Type.Literal('announcement'),
  id: Type.String({ pattern: '^ann_' }),
  message: Type.String(),
  livemode: Type.Boolean(),
  created_at: Timestamp,
  expires_at: Timestamp,
});

const L = ANNOUNCEMENT_LIMITS;
const CreateBody = Type.Object(
  {
    message: Type.String({ minLength: 1, maxLength: L.maxLength, pattern: '\\S', description: `Shown on waiting customer pages and boards; at most ${L.maxLength} characters` }),
    expires_in: Type.Optional(Type.Integer({ minimum: L.minExpiresIn, maximum: L.maxExpiresIn, default: L.defaultExpiresIn, description: 'Seconds until it disappears' })),
  },
  { additionalProperties: false },
);

const present = (a: Announcement) => ({
  object: 'announcement' as const, id: a.id, message: a.message, livemode: a.mode === 'live', created_at: iso(a.createdAt)!, expires_at: iso(a.expiresAt)!,
});

export function registerAnnouncementRoutes(app: FastifyInstance, services: Services): void {
  app.get('/announcements', {
    schema: {
      tags: ['announcements'], summary: 'List the announcements showing now (newest first)',
      response: { 200: Type.Object({ object: Type.Literal('list'), data: Type.Array(AnnouncementSchema), has_more: Type.Boolean() }), ...problemResponses() },
    },
  }, async (req) => {
    const ctx = ctxFor(req, services);
    const list = await listActiveAnnouncements(services.db, ctx.branchId, ctx.mode, services.clock.now(), 100);
    return { object: 'list', data: list.map(present), has_more: false };
  });

  app.post('/announcements', {
    schema: { tags: ['announcements'], summary: 'Show a note on waiting customer pages and boards', body: CreateBody, response: { 201: AnnouncementSchema, ...problemResponses() } },
  }, async (req, reply) => {
    const body = req.body as { message: string; expires_in?: number };
    const input = { message: body.message.trim(), expiresIn: body.expires_in ?? L.defaultExpiresIn };
    return runWrite(req, reply, ctxFor(req, services), { status: 201, run: async (ctx) => present(await createAnnouncement({ ctx, input })) });
  });

  app.delete('/announcements/:id', {
    schema: {
      tags: ['announcements'], summary: 'Take an announcement down', params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
      response: { 200: Type.Object({ object: Type.Literal('announcement'), id: Type.String(), deleted: Type.Literal(true) }), ...problemResponses() },
    },
  }, async (req, reply) => {
    const { id } = req.params as { id: string };
    if (!isId('announcement', id)) throw notFound('announcement');
    return runWrite(req, reply, ctxFor(req, services), {
      status: 200,
      run: async (ctx) => ({ object: 'announcement', id: (await deleteAnnouncement({ ctx, input: { id } })).id, deleted: true }),
    });
  });
}
