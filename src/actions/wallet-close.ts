// A closed ticket's wallet passes change once more (collected, cancelled, expired) and their device
// registrations go (PRODUCT.md §14). The close writes this job in its own transaction, only where a
// wallet is configured and the ticket has a pass in one; its handler (channels/wallet/close-job.ts) tells every issuer, which
// pushes the change, and erases the registrations two minutes later.
import type { TxCtx } from '../core/ctx.ts';
import type { Ticket } from '../core/ticket.ts';
import type { Mode } from '../core/tenancy.ts';
import { defineJobKind } from '../core/job-registry.ts';
import { enqueueJob, newJob } from '../store/outbox.ts';
import { ticketHasWalletPass } from '../store/ticket-wallets.ts';

export type WalletClosePayload = { ticket_id: string; branch_id: string; mode: Mode; reason: 'collected' | 'cancelled' | 'expired' };

export const WALLET_CLOSE_JOB = defineJobKind<WalletClosePayload>('wallet_close');

export async function scheduleWalletClose(ctx: TxCtx, ticket: Ticket, reason: WalletClosePayload['reason']): Promise<void> {
  const { config } = ctx.services;
  if (config.appleWallet === null && config.googleWallet === null) return;
  // Most tickets never reach a wallet: their close costs this read, not a job.
  if (!(await ticketHasWalletPass(ctx.tx, ticket))) return;
  const now = ctx.services.clock.now();
  const payload: WalletClosePayload = { ticket_id: ticket.id, branch_id: ticket.branchId, mode: ticket.mode, reason };
  await enqueueJob(ctx.tx, newJob(WALLET_CLOSE_JOB, `wallet-close:${ticket.id}:${now}`, payload, now, now, { accountId: ctx.accountId }));
}
