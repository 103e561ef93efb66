// The texts rings sent and what their delivery receipts said (decision 0026), the ticket's
// `sms_status` that mirrors its latest text, and the lookup that matches a customer's reply to
// the open ticket texted at that number. No number or message text is stored here.
import type { Queryable, Tx } from '../core/db.ts';
import { one } from './db.ts';
import type { Mode } from '../core/tenancy.ts';
import { TICKET_COLUMNS, toTicket } from './tickets.ts';
import type { Ticket } from '../core/ticket.ts';
import { isSmsFailure, smsStatusRank } from '../domain/sms-status.ts';
import { SMS_STATUSES, type SmsStatus } from '../core/ticket.ts';

export type SmsRecord = {
  ringId: string;
  ticketId: string;
  branchId: string;
  mode: Mode;
  /** The ring's number on its ticket. */
  seq: number;
  status: SmsStatus;
  /** The provider's error code for a refused, failed or undelivered text (Twilio's 30003 …). */
  errorCode: string | null;
  providerSid: string | null;
  sentAt: number;
  updatedAt: number;
};

type Row = {
  ring_id: string;
  ticket_id: string;
  branch_id: string;
  mode: Mode;
  seq: number;
  status: SmsStatus;
  error_code: string | null;
  provider_sid: string | null;
  sent_at: number;
  updated_at: number;
};
const toRecord = (r: Row): SmsRecord => ({
  ringId: r.ring_id,
  ticketId: r.ticket_id,
  branchId: r.branch_id,
  mode: r.mode,
  seq: Number(r.seq),
  status: r.status,
  errorCode: r.error_code,
  providerSid: r.provider_sid,
  sentAt: Number(r.sent_at),
  updatedAt: Number(r.updated_at),
});
const COLUMNS = 'ring_id, ticket_id, branch_id, mode, seq, status, error_code, provider_sid, sent_at, updated_at';

/** smsStatusRank in SQL, built from the same list. */
const rank = (column: string): string =>
  `(CASE ${column} ${SMS_STATUSES.map((s) => `WHEN '${s}' THEN ${smsStatusRank(s)}`).join(' ')} ELSE -1 END)`;

// Whichever comes first, the sender's record of the provider's acceptance or a status callback,
// inserts the row; after that a status only moves forward (callbacks arrive out of order), and
// the first final status stays. One statement, so two callbacks racing on two nodes cannot move
// it back.
const UPSERT = `INSERT INTO sms_messages (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)
  ON CONFLICT (ring_id) DO UPDATE SET
    status = CASE WHEN ${rank('excluded.status')} > ${rank('sms_messages.status')} THEN excluded.status ELSE sms_messages.status END,
    error_code = CASE WHEN ${rank('excluded.status')} > ${rank('sms_messages.status')} THEN excluded.error_code ELSE sms_messages.error_code END,
    provider_sid = COALESCE(sms_messages.provider_sid, excluded.provider_sid),
    updated_at = excluded.updated_at`;

// The ticket shows its latest text's status: a receipt for an older ring's text changes nothing
// visible once a newer text was sent.
const REFRESH_TICKET = `UPDATE tickets SET sms_status = (SELECT m.status FROM sms_messages m WHERE m.ticket_id = tickets.id ORDER BY m.seq DESC LIMIT 1)
  WHERE id = $1 AND branch_id = $2 AND mode = $3
  RETURNING id, status, queue, display_number, sms_status`;

export type SmsUpdate = Omit<SmsRecord, 'sentAt' | 'updatedAt'> & { at: number };
/** What the staff views need to hear about the change. */
export type TicketSmsView = { id: string; status: string; queue: string; displayNumber: string; smsStatus: SmsStatus | null };

/** Records a status of a ring's text and refreshes its ticket's `sms_status`; undefined when the ticket is gone. */
export async function recordSmsStatus(tx: Tx, u: SmsUpdate): Promise<TicketSmsView | undefined> {
  await tx.run(UPSERT, [
    u.ringId,
    u.ticketId,
    u.branchId,
    u.mode,
    u.seq,
    u.status,
    u.errorCode?.slice(0, 32) ?? null,
    u.providerSid?.slice(0, 64) ?? null,
    u.at,
  ]);
  const t = await one<{ id: string; status: string; queue: string; display_number: string; sms_status: SmsStatus | null }>(
    tx,
    REFRESH_TICKET,
    [u.ticketId, u.branchId, u.mode],
  );
  return t && { id: t.id, status: t.status, queue: t.queue, displayNumber: t.display_number, smsStatus: t.sms_status };
}

/** The ring a status callback names, with what its text's record needs. */
export async function getRingForSms(
  q: Queryable,
  ringId: string,
): Promise<{ ticketId: string; branchId: string; mode: Mode; seq: number } | undefined> {
  const r = await one<{ ticket_id: string; branch_id: string; mode: Mode; seq: number }>(
    q,
    'SELECT ticket_id, branch_id, mode, seq FROM rings WHERE id = $1',
    [ringId],
  );
  return r && { ticketId: r.ticket_id, branchId: r.branch_id, mode: r.mode, seq: Number(r.seq) };
}

/** The text of one ring, if it sent one. */
export async function getSmsOfRing(q: Queryable, ringId: string): Promise<SmsRecord | undefined> {
  const r = await one<Row>(q, `SELECT ${COLUMNS} FROM sms_messages WHERE ring_id = $1`, [ringId]);
  return r && toRecord(r);
}

/**
 * The ticket's latest text and its delivery state, for the escalation ladder: a text that
 * `failed` (refused by the provider, or a final failure receipt) lets it try the next step.
 */
export async function latestSmsOfTicket(q: Queryable, ticketId: string): Promise<(SmsRecord & { failed: boolean }) | undefined> {
  const r = await one<Row>(q, `SELECT ${COLUMNS} FROM sms_messages WHERE ticket_id = $1 ORDER BY seq DESC LIMIT 1`, [ticketId]);
  if (r === undefined) return undefined;
  const record = toRecord(r);
  return { ...record, failed: isSmsFailure(record.status) };
}

/**
 * The open ticket a reply from `phone` answers: of the open tickets of the mode with that number
 * that were texted, the one texted last (a reply answers the latest text the phone got).
 */
export async function findTextedTicket(q: Queryable, mode: Mode, phone: string): Promise<Ticket | undefined> {
  const r = await one(
    q,
    `SELECT ${TICKET_COLUMNS} FROM tickets
    WHERE customer_phone = $1 AND mode = $2 AND closed_at IS NULL AND EXISTS (SELECT 1 FROM sms_messages m WHERE m.ticket_id = tickets.id)
    ORDER BY (SELECT MAX(m.sent_at) FROM sms_messages m WHERE m.ticket_id = tickets.id) DESC, id DESC LIMIT 1`,
    [phone, mode],
  );
  return r && toTicket(r);
}
