// Retention at close (PRODUCT.md §1, §13): a closed ticket can no longer be rung, so the ways of
// reaching the customer go with it: push subscriptions (an endpoint reaches someone's device) and
// the per-ring send records (those of a ring still open go once its job has recorded it). The
// phone number is erased by the close itself.
import type { Tx } from '../core/db.ts';
import type { Ticket } from '../core/ticket.ts';
import { deleteTicketPushSubscriptions } from '../store/push-subscriptions.ts';
import { deleteTicketSends } from '../store/ring-sends.ts';

export async function eraseRingTargets(tx: Tx, ticket: Ticket): Promise<void> {
  await deleteTicketPushSubscriptions(tx, ticket.branchId, ticket.mode, ticket.id);
  await deleteTicketSends(tx, ticket.id);
}
