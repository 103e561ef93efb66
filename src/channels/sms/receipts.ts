// One path for every change of a text's delivery state (decision 0026): the SMS channel records
// the provider's answer to the send (queued, or failed when refused; delivered when test mode
// simulates it), and the provider's status callbacks record what followed. Each writes the
// ring's text record and the ticket's `sms_status`, then tells the branch's live views, so the
// staff board shows it.
import type { Db } from '../../core/db.ts';
import type { Bus } from '../../core/bus.ts';
import { channels } from '../../core/bus.ts';
import { recordSmsStatus, type SmsUpdate, type TicketSmsView } from '../../store/sms-messages.ts';
import { isSmsFailure } from '../../domain/sms-status.ts';
import { hastenReminder } from '../../actions/ring-schedule.ts';
import { recordSmsUsage } from '../../store/billing.ts';

export type ReceiptDeps = { db: Db; bus: Bus };

/** The live message's type: a ticket's `sms_status` changed (GET /v1/tickets/{id} shows it). */
export const SMS_STATUS_MESSAGE = 'ticket.sms_status';

export async function recordSms(deps: ReceiptDeps, update: SmsUpdate): Promise<TicketSmsView | undefined> {
  return deps.db.write(async (tx) => {
    const view = await recordSmsStatus(tx, update);
    // A live text the provider took is usage, billed through Stripe (decision 0085); a receipt
    // counts it as well as the sender's record, so a sender that died after the send still does.
    if (update.mode === 'live' && !isSmsFailure(update.status)) await recordSmsUsage(tx, update.ringId, update.branchId, update.at);
    // A text that failed lets the escalation ladder try its next step now (decision 0032).
    if (view !== undefined && view.status === 'ready' && isSmsFailure(update.status)) await hastenReminder(tx, update.ticketId, update.at);
    if (view !== undefined) {
      tx.afterCommit(() =>
        deps.bus.publish(channels.branch(update.branchId, update.mode), {
          type: SMS_STATUS_MESSAGE,
          ticket_id: view.id,
          status: view.status,
          queue: view.queue,
          display_number: view.displayNumber,
          sms_status: view.smsStatus,
        }),
      );
    }
    return view;
  });
}
