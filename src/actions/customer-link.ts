// What a customer's link reads before the customer can act: the ticket behind the token (the
// link is the customer's only credential, so there is no ctx yet), then the ctx the customer acts
// in, with the account and plan of the ticket's branch. The customer page, its push subscription
// and the customer's texted replies act through these.
import type { Ctx, Services } from '../core/ctx.ts';
import type { Ticket } from '../core/ticket.ts';
import { getTicketByToken } from '../store/tickets.ts';
import { getAccount, getBranch } from '../store/tenancy.ts';

/** `token` has the shape of a ticket link's token; closed tickets are found too (the page says how long they stay). */
export const findTicketByLink = (services: Services, token: string): Promise<Ticket | undefined> => getTicketByToken(services.db, token);

/**
 * The customer's ctx for their ticket; undefined when its branch or account is gone. The account is
 * read from the ticket's branch unless the caller already holds the branch's account id.
 */
export async function customerCtx(services: Services, ticket: Ticket, requestId: string, accountId?: string): Promise<Ctx | undefined> {
  const { db } = services;
  const ofAccount = accountId ?? (await getBranch(db, ticket.branchId))?.accountId;
  const account = ofAccount === undefined ? undefined : await getAccount(db, ofAccount);
  if (account === undefined) return undefined;
  return {
    actor: { kind: 'customer', ticketId: ticket.id },
    accountId: account.id,
    plan: account.plan,
    branchId: ticket.branchId,
    mode: ticket.mode,
    requestId,
    idempotencyKey: null,
    services,
  };
}
