// Send claims: "a ring goes out at most once through a channel to a target". The row is inserted
// before the send, in its own committed transaction; whoever inserted it sends, anyone else (the
// outbox job finishing a ring, possibly on another node) reads or waits for the recorded outcome.
// A claim whose sender died mid-send is taken over by one asker (see send-once.ts); `claimed_at`
// names the current owner, so only the owner's outcome settles it.
import type { Db, Queryable, Tx } from '../core/db.ts';
import { one } from './db.ts';

export type SendKey = { ringId: string; channel: string; target: string };
/** unknown: the sender died between sending and recording, and the send cannot be repeated. */
export type SendStatus = 'sending' | 'delivered' | 'undelivered' | 'unknown';
export type SendRecord = { status: SendStatus; detail: string | null; claimedAt: number; settledAt: number | null };

type Row = { status: SendStatus; detail: string | null; claimed_at: number; settled_at: number | null };
const toRecord = (r: Row): SendRecord => ({
  status: r.status,
  detail: r.detail,
  claimedAt: Number(r.claimed_at),
  settledAt: r.settled_at === null ? null : Number(r.settled_at),
});

/** Returns null when this caller now owns the send; otherwise the existing claim. */
export async function claimSend(db: Db, key: SendKey, ticketId: string, now: number): Promise<SendRecord | null> {
  return db.write(async (tx) => {
    const n = await tx.run(
      `INSERT INTO ring_sends (ring_id, channel, target, ticket_id, status, claimed_at) VALUES ($1, $2, $3, $4, 'sending', $5)
       ON CONFLICT (ring_id, channel, target) DO NOTHING`,
      [key.ringId, key.channel, key.target, ticketId, now],
    );
    if (n === 1) return null;
    return (await getSend(tx, key))!;
  });
}

export async function getSend(q: Queryable, key: SendKey): Promise<SendRecord | undefined> {
  const r = await one<Row>(
    q,
    'SELECT status, detail, claimed_at, settled_at FROM ring_sends WHERE ring_id = $1 AND channel = $2 AND target = $3',
    [key.ringId, key.channel, key.target],
  );
  return r && toRecord(r);
}

/**
 * Records the outcome of the send claimed at `claimedAt`. A sender that lost its claim (taken over
 * as stale) settles nothing, except that a delivery always sticks: the customer was reached.
 */
export async function settleSend(db: Db, key: SendKey, claimedAt: number, delivered: boolean, detail: string, now: number): Promise<void> {
  await db.write((tx) =>
    tx.run(
      `UPDATE ring_sends SET status = $4, detail = $5, settled_at = $6 WHERE ring_id = $1 AND channel = $2 AND target = $3
       AND ((status = 'sending' AND claimed_at = $7) OR ($4 = 'delivered' AND status <> 'delivered'))`,
      [key.ringId, key.channel, key.target, delivered ? 'delivered' : 'undelivered', detail.slice(0, 200), now, claimedAt],
    ),
  );
}

/**
 * Takes over a claim still `sending` since `claimedAt` (its sender died): true when this caller
 * now owns it, claimed at `now`. With `unknownDetail` the claim is settled as unknown instead.
 */
export async function takeOverSend(db: Db, key: SendKey, claimedAt: number, now: number, unknownDetail?: string): Promise<boolean> {
  const n = await db.write((tx) =>
    unknownDetail === undefined
      ? tx.run(
          "UPDATE ring_sends SET claimed_at = $5 WHERE ring_id = $1 AND channel = $2 AND target = $3 AND status = 'sending' AND claimed_at = $4",
          [key.ringId, key.channel, key.target, claimedAt, now],
        )
      : tx.run(
          "UPDATE ring_sends SET status = 'unknown', detail = $6, settled_at = $5 WHERE ring_id = $1 AND channel = $2 AND target = $3 AND status = 'sending' AND claimed_at = $4",
          [key.ringId, key.channel, key.target, claimedAt, now, unknownDetail.slice(0, 200)],
        ),
  );
  return n === 1;
}

/** Every send of a ring, for recording its outcome from what was sent (a ticket closed mid-ring). */
export async function listRingSends(q: Queryable, ringId: string): Promise<Array<SendKey & SendRecord>> {
  const rows = await q.query<Row & { channel: string; target: string }>(
    'SELECT channel, target, status, detail, claimed_at, settled_at FROM ring_sends WHERE ring_id = $1 ORDER BY channel, target',
    [ringId],
  );
  return rows.map((r) => ({ ringId, channel: r.channel, target: r.target, ...toRecord(r) }));
}

/**
 * Retention: a closed ticket's send records go with it, except those of a ring still open (the
 * deadline cut it short): its job records the ring's outcome from them, then erases them
 * (deleteRingSends), so that a send that reached the customer is not recorded as "not reached".
 */
export async function deleteTicketSends(tx: Tx, ticketId: string): Promise<void> {
  await tx.run(
    'DELETE FROM ring_sends WHERE ticket_id = $1 AND ring_id NOT IN (SELECT id FROM rings WHERE ticket_id = $1 AND completed_at IS NULL)',
    [ticketId],
  );
}

export async function deleteRingSends(tx: Tx, ringId: string): Promise<void> {
  await tx.run('DELETE FROM ring_sends WHERE ring_id = $1', [ringId]);
}
