// The ticket's state machine: which operation moves a ticket from which state to which, and the
// 409 an operation gets when the ticket's state does not allow it.
import type { TicketStatus } from '../core/ticket.ts';
import { AppError } from './errors.ts';

export const TICKET_STATUSES: readonly TicketStatus[] = ['created', 'ready', 'collected', 'cancelled', 'expired'];

export type TicketOperation =
  | 'ready'
  | 'ring'
  | 'remind'
  | 'snooze_end'
  | 'collect'
  | 'cancel'
  | 'expire'
  | 'reopen'
  | 'customer_view'
  | 'customer_subscribe'
  | 'customer_acknowledge'
  | 'customer_snooze';

/** `before-close`: back to what the ticket was when it closed, `ready` if it had been made ready, else `created`. */
type Rule = { from: readonly TicketStatus[]; to: TicketStatus | 'same' | 'before-close' };

/**
 * How long a closed ticket's customer page still opens (it shows the final state), and so how long
 * a cancelled or collected ticket can be reopened (decision 0047).
 */
export const CLOSED_LINK_TTL_MS = 24 * 60 * 60 * 1000;

const OPEN: readonly TicketStatus[] = ['created', 'ready'];

// One table mirroring PRODUCT.md §2 so a reviewer can check it line by line against the contract.
// A Record keyed by the union makes the compiler reject a new operation that has no rule.
const RULES: Record<TicketOperation, Rule> = {
  ready: { from: ['created'], to: 'ready' },
  ring: { from: ['ready'], to: 'same' },
  remind: { from: ['ready'], to: 'same' },
  snooze_end: { from: ['ready'], to: 'same' },
  collect: { from: OPEN, to: 'collected' },
  cancel: { from: OPEN, to: 'cancelled' },
  expire: { from: OPEN, to: 'expired' },
  // Staff's mistake undone (decision 0047): an expiry is the service's, not staff's, so it stays.
  reopen: { from: ['collected', 'cancelled'], to: 'before-close' },
  // A customer may reopen the link after pickup and must still see the final state.
  customer_view: { from: TICKET_STATUSES, to: 'same' },
  customer_subscribe: { from: OPEN, to: 'same' },
  // Acknowledging or snoozing only makes sense as an answer to a ring.
  customer_acknowledge: { from: ['ready'], to: 'same' },
  customer_snooze: { from: ['ready'], to: 'same' },
};

/**
 * The status after `op`, or null when the operation is forbidden from `from` (409). `wasReady`:
 * whether the ticket had been made ready (its `readyAt`), for a reopen.
 */
export function nextStatus(from: TicketStatus, op: TicketOperation, wasReady = false): TicketStatus | null {
  const rule = RULES[op];
  if (!rule.from.includes(from)) return null;
  if (rule.to === 'before-close') return wasReady ? 'ready' : 'created';
  return rule.to === 'same' ? from : rule.to;
}

export function isOpen(s: TicketStatus): boolean {
  return s === 'created' || s === 'ready';
}

/** The states an operation may start from. */
export function allowedFrom(op: TicketOperation): TicketStatus[] {
  return TICKET_STATUSES.filter((s) => nextStatus(s, op) !== null);
}

/** The 409 for an operation the ticket's state does not allow. */
export function stateConflict(op: string, status: TicketStatus): AppError {
  return new AppError('ticket-state-conflict', `Cannot ${op} a ticket that is ${status}.`, { ticket_status: status });
}
