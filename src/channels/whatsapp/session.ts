// WhatsApp's 24-hour customer service window (decision 0091): a business may write free-form to a
// number only within 24 hours of that number's last message to it; outside it, only an approved
// template goes through. The window is kept as the time of the number's last inbound WhatsApp
// message, under its keyed digest (no number stored), in the table of inbound messages SMS
// already keeps and sweeps after two days (store/sms-opt-outs.ts): longer than any window.
import type { Queryable, Tx } from '../../core/db.ts';
import type { Mode } from '../../core/tenancy.ts';
import { one } from '../../store/db.ts';

/** How long after a customer's message free-form messages are allowed (WhatsApp's rule). */
export const SESSION_MS = 24 * 3600_000;

const key = (mode: Mode, digest: string): string => `wa:${mode}:${digest}`;

/** Notes a message from the number at `now`: its window opens (again) for 24 hours. */
export async function openSession(tx: Tx, mode: Mode, digest: string, now: number): Promise<void> {
  await tx.run(
    `INSERT INTO sms_inbound (message_sid, received_at) VALUES ($1, $2)
      ON CONFLICT (message_sid) DO UPDATE SET received_at = CASE WHEN excluded.received_at > sms_inbound.received_at THEN excluded.received_at ELSE sms_inbound.received_at END`,
    [key(mode, digest), now],
  );
}

/** Whether the number wrote to the service's WhatsApp sender in the 24 hours before `now`. */
export async function inSession(q: Queryable, mode: Mode, digest: string, now: number): Promise<boolean> {
  const row = await one<{ received_at: number | string }>(q, 'SELECT received_at FROM sms_inbound WHERE message_sid = $1', [
    key(mode, digest),
  ]);
  return row !== undefined && now - Number(row.received_at) < SESSION_MS;
}
