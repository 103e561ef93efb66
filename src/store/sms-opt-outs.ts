// Numbers that texted STOP (as keyed digests, per mode) and the inbound messages already acted on.
import type { Queryable, Tx } from '../core/db.ts';
import { one } from './db.ts';
import type { Mode } from '../core/tenancy.ts';

export async function isOptedOut(q: Queryable, mode: Mode, digest: string): Promise<boolean> {
  return (await one(q, 'SELECT 1 AS one FROM sms_opt_outs WHERE mode = $1 AND phone_digest = $2', [mode, digest])) !== undefined;
}

export async function optOut(tx: Tx, mode: Mode, digest: string, now: number): Promise<void> {
  await tx.run(
    'INSERT INTO sms_opt_outs (mode, phone_digest, created_at) VALUES ($1, $2, $3) ON CONFLICT (mode, phone_digest) DO NOTHING',
    [mode, digest, now],
  );
}

export async function optIn(tx: Tx, mode: Mode, digest: string): Promise<void> {
  await tx.run('DELETE FROM sms_opt_outs WHERE mode = $1 AND phone_digest = $2', [mode, digest]);
}

/** How long an inbound message id is remembered: providers redeliver within minutes, not days. */
export const INBOUND_MEMORY_MS = 2 * 24 * 3600_000;

/**
 * Remembers an inbound message id; false when it was acted on already. Forgets ids older than
 * INBOUND_MEMORY_MS on the way, so the table stays as small as two days of replies.
 */
export async function firstInbound(tx: Tx, messageSid: string, now: number): Promise<boolean> {
  await tx.run('DELETE FROM sms_inbound WHERE received_at < $1', [now - INBOUND_MEMORY_MS]);
  return (
    (await tx.run('INSERT INTO sms_inbound (message_sid, received_at) VALUES ($1, $2) ON CONFLICT (message_sid) DO NOTHING', [
      messageSid.slice(0, 64),
      now,
    ])) === 1
  );
}
