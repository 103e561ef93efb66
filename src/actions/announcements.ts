// Announcements: a short note from the shop on every waiting customer page and board of the
// branch and mode, until it expires or is deleted.
import { readerOf, type Action, type Read } from '../core/ctx.ts';
import { notFound } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import {
  getAnnouncement,
  insertAnnouncement,
  listActiveAnnouncements,
  markAnnouncementDeleted,
  type Announcement,
} from '../store/announcements.ts';
import { channels } from '../core/bus.ts';
import { requireRole } from './roles.ts';

export const ANNOUNCEMENT_LIMITS = { maxLength: 280, minExpiresIn: 60, maxExpiresIn: 7 * 24 * 3600, defaultExpiresIn: 3600 } as const;

/** The announcements showing now, newest first (at most 100). */
export const listAnnouncements: Read<void, Announcement[]> = async ({ ctx }) =>
  listActiveAnnouncements(readerOf(ctx), ctx.branchId, ctx.mode, ctx.services.clock.now(), 100);

export const createAnnouncement: Action<{ message: string; expiresIn: number }, Announcement> = async ({ ctx, input }) => {
  requireRole(ctx, 'staff');
  const now = ctx.services.clock.now();
  const a: Announcement = {
    id: newId('announcement', now),
    branchId: ctx.branchId,
    mode: ctx.mode,
    message: input.message,
    createdAt: now,
    expiresAt: now + input.expiresIn * 1000,
    deletedAt: null,
  };
  await insertAnnouncement(ctx.tx, a);
  const { bus } = ctx.services;
  ctx.tx.afterCommit(() => bus.publish(channels.branch(ctx.branchId, ctx.mode), { type: 'announcement.created', announcement_id: a.id }));
  return a;
};

export const deleteAnnouncement: Action<{ id: string }, Announcement> = async ({ ctx, input }) => {
  requireRole(ctx, 'staff');
  const now = ctx.services.clock.now();
  const a = await getAnnouncement(ctx.tx, ctx.branchId, ctx.mode, input.id);
  if (a === undefined || !(await markAnnouncementDeleted(ctx.tx, ctx.branchId, ctx.mode, input.id, now))) throw notFound('announcement');
  const { bus } = ctx.services;
  ctx.tx.afterCommit(() => bus.publish(channels.branch(ctx.branchId, ctx.mode), { type: 'announcement.deleted', announcement_id: a.id }));
  return { ...a, deletedAt: now };
};
