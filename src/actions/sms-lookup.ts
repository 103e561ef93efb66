// What the SMS provider's webhooks and the SMS test helper read before they act: the open ticket
// a customer's text answers (with the ctx the customer acts in), the ring a delivery receipt
// names, and, for the test helper, a ticket of the caller's that was texted.
import { readerOf, type Read, type Services } from '../core/ctx.ts';
import type { Mode } from '../core/tenancy.ts';
import type { Ticket } from '../core/ticket.ts';
import { AppError } from '../domain/errors.ts';
import { findTextedTicket, getRingForSms, getSmsOfRing, latestSmsOfTicket } from '../store/sms-messages.ts';
import { getBranch } from '../store/tenancy.ts';
import { customerCtx } from './customer-link.ts';
import { readTicket } from './read-tickets.ts';
import type { SmsReplyTarget } from './sms-reply.ts';

/** The open live ticket texted at `phone` last, with the context its customer acts in; null when none. */
export async function smsReplyTarget(services: Services, phone: string, requestId: string): Promise<SmsReplyTarget | null> {
  const ticket = await findTextedTicket(services.db, 'live', phone);
  const branch = ticket && (await getBranch(services.db, ticket.branchId));
  const ctx = branch && (await customerCtx(services, ticket!, requestId, branch.accountId));
  if (ticket === undefined || branch === undefined || ctx === undefined) return null;
  return { ctx, ticket, branch };
}

/** The ring a receipt names, or, once the ring is gone with its ticket's retention, its text's record. */
export async function ringOfText(
  services: Services,
  ringId: string,
): Promise<{ ticketId: string; branchId: string; mode: Mode; seq: number } | undefined> {
  return (await getRingForSms(services.db, ringId)) ?? (await getSmsOfRing(services.db, ringId));
}

/**
 * A ticket of the caller's branch and mode that a text was sent for and that is still open, with
 * its branch and the number texted: what a reply needs. 404 for an unknown ticket, 409 otherwise.
 */
export const readTextedTicket: Read<{ id: string }, SmsReplyTarget & { phone: string }> = async ({ ctx, input }) => {
  const ticket: Ticket = await readTicket({ ctx, input });
  const q = readerOf(ctx);
  const phone = ticket.customerPhone;
  if (phone === null || ticket.closedAt !== null || (await latestSmsOfTicket(q, ticket.id)) === undefined) {
    throw new AppError(
      'conflict',
      'No text was sent for this open ticket yet: create it with customer_phone on a business-plan branch and ring it (test mode simulates the SMS).',
    );
  }
  const branch = (await getBranch(q, ticket.branchId))!;
  return { ctx, ticket, branch, phone };
};
