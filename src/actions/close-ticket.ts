// collect, cancel and expire: the three ways a ticket closes. Closing erases the customer's phone
// number (PRODUCT.md §1: kept only while it can be used) and frees the display number.
import { sharesCommit } from '../core/shared-commit.ts';
import type { Action, TxCtx } from '../core/ctx.ts';
import type { Ticket } from '../core/ticket.ts';
import { applyTransition } from './transition.ts';
import { presentTicket } from '../contract/present.ts';
import { recordEvent } from './record-event.ts';
import { publishTicket } from './publish.ts';
import { eraseRingTargets } from './erase-ring-targets.ts';
import { scheduleWalletClose } from './wallet-close.ts';
import { closingChange, countTicketChange } from '../store/insights-rollups.ts';

async function close(ctx: TxCtx, id: string, op: 'collect' | 'cancel' | 'expire', reason: string | null): Promise<Ticket> {
  const now = ctx.services.clock.now();
  const stamp = op === 'collect' ? { collectedAt: now } : op === 'cancel' ? { cancelledAt: now, cancelReason: reason } : { expiredAt: now };
  const { before, ticket } = await applyTransition(ctx, id, op, { ...stamp, closedAt: now, customerPhone: null, snoozedUntil: null });
  await eraseRingTargets(ctx.tx, ticket);
  await scheduleWalletClose(ctx, ticket, op === 'collect' ? 'collected' : op === 'cancel' ? 'cancelled' : 'expired');
  const type = op === 'collect' ? 'ticket.collected' : op === 'cancel' ? 'ticket.cancelled' : 'ticket.expired';
  await recordEvent(ctx, type, { object: presentTicket(ticket, ctx.services.config.publicUrl), previous_status: before });
  await countTicketChange(ctx.tx, ticket, now, closingChange(ticket));
  publishTicket(ctx, ticket, type);
  return ticket;
}

// Each shares its commit with the writes that arrive together (decision 0079).
export const collectTicket: Action<{ id: string }, Ticket> = sharesCommit(({ ctx, input }) => close(ctx, input.id, 'collect', null));

export const cancelTicket: Action<{ id: string; reason?: string }, Ticket> = sharesCommit(({ ctx, input }) =>
  close(ctx, input.id, 'cancel', input.reason ?? null),
);

export const expireTicket: Action<{ id: string }, Ticket> = sharesCommit(({ ctx, input }) => close(ctx, input.id, 'expire', null));
