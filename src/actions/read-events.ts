// Reading the branch's events over /v1 (the last 30 days). An event is answered as it was stored,
// byte for byte, the body its webhooks delivered, so these verbs return JSON text, not objects.
// Events belong to the ctx's branch and mode: another's id answers like an unknown one.
import { readerOf, type Read } from '../core/ctx.ts';
import { invalid, notFound } from '../domain/errors.ts';
import { isId } from '../domain/ids.ts';
import { getEventBody, listEventBodies, type EventFilter } from '../store/outbox.ts';

/** `id` as sent: one that is not an event id's shape answers 404 like an unknown one. */
export const readEvent: Read<{ id: string }, string> = async ({ ctx, input }) => {
  const body = isId('event', input.id) ? await getEventBody(readerOf(ctx), ctx.branchId, ctx.mode, input.id) : undefined;
  if (body === undefined) throw notFound('event');
  return body;
};

/** A page of events, newest first; the cursor must be an event of the ctx's branch and mode. */
export const listEventPage: Read<EventFilter, { data: string[]; hasMore: boolean }> = async ({ ctx, input }) => {
  const q = readerOf(ctx);
  const after = input.startingAfter;
  if (after !== undefined && (!isId('event', after) || (await getEventBody(q, ctx.branchId, ctx.mode, after)) === undefined)) {
    throw invalid('/query/starting_after', 'starting_after must be the id of an event of this branch and mode.');
  }
  return listEventBodies(q, ctx.branchId, ctx.mode, input);
};
