// A customer turns notifications on in their browser: the "subscribe" of customer-action.ts (which
// refuses a closed ticket, 409, before anything is kept) and the browser's PushSubscription kept
// for the ticket's rings, in one transaction. The customer page's POST /t/<token>/push and the
// test helper (with the push service readybell simulates) both come here.
import type { Action } from '../core/ctx.ts';
import type { Ticket } from '../core/ticket.ts';
import { newId } from '../domain/ids.ts';
import { upsertPushSubscription } from '../store/push-subscriptions.ts';
import { recordCustomerAction } from './customer-action.ts';

/** What a browser's PushSubscription gives: where to send, and the keys to encrypt with. */
export type PushKeys = { endpoint: string; p256dh: string; auth: string };

export const subscribeToPush: Action<{ ticketId: string; keys: PushKeys }, Ticket> = async ({ ctx, input }) => {
  const { ticket } = await recordCustomerAction({ ctx, input: { ticketId: input.ticketId, action: 'subscribe', channel: 'push' } });
  const now = ctx.services.clock.now();
  await upsertPushSubscription(ctx.tx, {
    id: newId('pushSubscription', now),
    ticketId: ticket.id,
    branchId: ticket.branchId,
    mode: ticket.mode,
    ...input.keys,
    createdAt: now,
  });
  return ticket;
};
