// Queues: branch configuration shared by both modes (decision: docs/decisions/0003-modes.md).
import { readerOf, type Action, type Read } from '../core/ctx.ts';
import type { Queryable } from '../core/db.ts';
import { AppError, invalid, notFound } from '../domain/errors.ts';
import {
  countOpenTicketsInQueue,
  deleteQueue,
  getBranch,
  getBranchForUpdate,
  getQueue,
  insertQueue,
  listQueues,
  updateBranch,
} from '../store/tenancy.ts';
import { countOpenTicketsByQueue } from '../store/open-tickets.ts';
import { requireLiveMode, requireRole } from './roles.ts';

/**
 * The 422 for a queue name the branch does not have, at `pointer`. Names are case-sensitive, so
 * "a" is not "A": when only the case differs the answer names the queue that exists.
 */
export async function unknownQueue(q: Queryable, branchId: string, name: string, pointer: string, advice = ''): Promise<AppError> {
  const meant = (await listQueues(q, branchId)).find((x) => x.name.toLowerCase() === name.toLowerCase());
  const hint = meant === undefined ? '' : ` Did you mean "${meant.name}"? Queue names are case-sensitive.`;
  return invalid(pointer, `Queue "${name}" does not exist in this branch.${hint}${advice}`);
}

export type QueueView = { name: string; isDefault: boolean; openTickets: number; createdAt: number };

/** Every queue of the branch, by name, with how many tickets are open in it in the ctx's mode. */
export const listQueueViews: Read<void, QueueView[]> = async ({ ctx }) => {
  const q = readerOf(ctx);
  const branch = (await getBranch(q, ctx.branchId))!;
  const queues = await listQueues(q, ctx.branchId);
  const open = await countOpenTicketsByQueue(q, ctx.branchId, ctx.mode);
  return queues.map((x) => ({
    name: x.name,
    isDefault: x.name === branch.defaultQueue,
    openTickets: open.get(x.name) ?? 0,
    createdAt: x.createdAt,
  }));
};

export const createQueue: Action<{ name: string }, QueueView> = async ({ ctx, input }) => {
  requireRole(ctx, 'manager');
  const now = ctx.services.clock.now();
  if (!(await insertQueue(ctx.tx, { branchId: ctx.branchId, name: input.name, createdAt: now }))) {
    throw new AppError('conflict', `Queue "${input.name}" already exists.`, { errors: [{ pointer: '/name', detail: 'already exists' }] });
  }
  return { name: input.name, isDefault: false, openTickets: 0, createdAt: now };
};

export const updateQueue: Action<{ name: string; new_name?: string; is_default?: boolean }, QueueView> = async ({ ctx, input }) => {
  requireRole(ctx, 'manager');
  // Making a queue the default is a branch setting (PATCH /v1/branch's default_queue).
  if (input.is_default !== undefined) requireLiveMode(ctx);
  const branch = (await getBranchForUpdate(ctx.tx, ctx.branchId))!;
  const queue = await getQueue(ctx.tx, ctx.branchId, input.name);
  if (queue === undefined) throw notFound('queue');
  let name = queue.name;
  if (input.new_name !== undefined && input.new_name !== queue.name) {
    if ((await countOpenTicketsInQueue(ctx.tx, ctx.branchId, queue.name)) > 0) {
      throw new AppError('conflict', 'A queue with open tickets cannot be renamed: their numbers carry its name.');
    }
    if (!(await insertQueue(ctx.tx, { branchId: ctx.branchId, name: input.new_name, createdAt: queue.createdAt }))) {
      throw new AppError('conflict', `Queue "${input.new_name}" already exists.`, {
        errors: [{ pointer: '/name', detail: 'already exists' }],
      });
    }
    await deleteQueue(ctx.tx, ctx.branchId, queue.name);
    name = input.new_name;
  }
  let isDefault = branch.defaultQueue === queue.name;
  if (input.is_default === true || (isDefault && name !== queue.name)) {
    await updateBranch(ctx.tx, { ...branch, defaultQueue: name, updatedAt: ctx.services.clock.now() });
    isDefault = true;
  } else if (input.is_default === false && isDefault) {
    throw invalid('/is_default', 'Make another queue the default instead; a branch always has one.');
  }
  return { name, isDefault, openTickets: await countOpenTicketsInQueue(ctx.tx, ctx.branchId, name), createdAt: queue.createdAt };
};

export const removeQueue: Action<{ name: string }, { name: string }> = async ({ ctx, input }) => {
  requireRole(ctx, 'manager');
  const branch = (await getBranchForUpdate(ctx.tx, ctx.branchId))!;
  if ((await getQueue(ctx.tx, ctx.branchId, input.name)) === undefined) throw notFound('queue');
  if (branch.defaultQueue === input.name)
    throw new AppError('conflict', 'The default queue cannot be deleted; make another queue the default first.');
  // Counted across both modes (queues are shared), so the message gives no count: a test key must
  // learn nothing about live traffic beyond "busy".
  if ((await countOpenTicketsInQueue(ctx.tx, ctx.branchId, input.name)) > 0) {
    throw new AppError(
      'conflict',
      `Queue "${input.name}" has open tickets in test or live mode; collect, cancel or let them expire first.`,
    );
  }
  await deleteQueue(ctx.tx, ctx.branchId, input.name);
  return { name: input.name };
};
