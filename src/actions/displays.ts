// Display boards: links for the shop's TVs, each showing some queues (or all) with voice on or off.
import { unknownQueue } from './queues.ts';
import { readerOf, type Action, type Read, type Services } from '../core/ctx.ts';
import { AppError, notFound } from '../domain/errors.ts';
import { newId, randomAlphanumeric } from '../domain/ids.ts';
import { getQueue } from '../store/tenancy.ts';
import {
  countDisplays,
  getDisplay,
  getDisplayByToken,
  insertDisplay,
  listDisplays,
  markDisplayDeleted,
  type Display,
} from '../store/displays.ts';
import { channels } from '../core/bus.ts';
import { requireRole } from './roles.ts';

/** More boards than a shop has screens is a leak (links created in a loop), not a use. */
export const MAX_DISPLAYS_PER_BRANCH = 50;

export const listBranchDisplays: Read<void, Display[]> = async ({ ctx }) => listDisplays(readerOf(ctx), ctx.branchId, ctx.mode);

/** `id` has the shape of a display id (the route answers 404 for one that has not). */
export const readDisplay: Read<{ id: string }, Display> = async ({ ctx, input }) => {
  const display = await getDisplay(readerOf(ctx), ctx.branchId, ctx.mode, input.id);
  if (display === undefined) throw notFound('display');
  return display;
};

/**
 * The display behind a board's link, deleted or not (its page says which); the link is the only
 * credential a board has, so there is no ctx yet. `token` has the link's shape.
 */
export const findDisplayByLink = (services: Services, token: string): Promise<Display | undefined> => getDisplayByToken(services.db, token);

export type CreateDisplayInput = { name: string; queues: string[]; voice: boolean };

export const createDisplay: Action<CreateDisplayInput, Display> = async ({ ctx, input }) => {
  requireRole(ctx, 'manager');
  const queues = [...new Set(input.queues)];
  for (const [i, q] of queues.entries()) {
    if ((await getQueue(ctx.tx, ctx.branchId, q)) === undefined) throw await unknownQueue(ctx.tx, ctx.branchId, q, `/queues/${i}`);
  }
  if ((await countDisplays(ctx.tx, ctx.branchId, ctx.mode)) >= MAX_DISPLAYS_PER_BRANCH) {
    throw new AppError('conflict', `A branch has at most ${MAX_DISPLAYS_PER_BRANCH} display boards; delete one first.`);
  }
  const now = ctx.services.clock.now();
  const display: Display = {
    id: newId('display', now),
    branchId: ctx.branchId,
    mode: ctx.mode,
    name: input.name,
    queues,
    voice: input.voice,
    token: randomAlphanumeric(32),
    createdAt: now,
    deletedAt: null,
  };
  await insertDisplay(ctx.tx, display);
  return display;
};

export const deleteDisplay: Action<{ id: string }, Display> = async ({ ctx, input }) => {
  requireRole(ctx, 'manager');
  const display = await getDisplay(ctx.tx, ctx.branchId, ctx.mode, input.id);
  const now = ctx.services.clock.now();
  if (display === undefined || !(await markDisplayDeleted(ctx.tx, ctx.branchId, ctx.mode, input.id, now))) throw notFound('display');
  // Boards open on this link are told at once, on whichever node holds them.
  const { bus } = ctx.services;
  ctx.tx.afterCommit(() => bus.publish(channels.branch(ctx.branchId, ctx.mode), { type: 'display.deleted', display_id: display.id }));
  return { ...display, deletedAt: now };
};
