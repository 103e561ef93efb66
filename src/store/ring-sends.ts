// Send claims: "a ring goes out at most once through a channel to a target". The row is inserted
// before the send, in its own committed transaction; whoever inserted it sends, anyone else (the
// outbox job finishing a ring, possibly on another node) reads or waits for the recorded outcome.
import type { Db, Queryable, Tx } from './db.ts';
import { one } from './db.ts';

export type SendKey = { ringId: string; channel: string; target: string };
export type SendStatus = 'sending' | 'delivered' | 'undelivered';
export type SendRecord = { status: SendStatus; detail: string | null; claimedAt: number; settledAt: number | null };

type Row = { status: SendStatus; detail: string | null; claimed_at: number; settled_at: number | null };
const toRecord = (r: Row): SendRecord => ({
  status: r.status, detail: r.detail, claimedAt: Number(r.claimed_at), settledAt: r.settled_at === null ? null : Number(r.settled_at),
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
  const r = await one<Row>(q, 'SELECT status, detail, claimed_at, settled_at FROM ring_sends WHERE ring_id = $1 AND channel = $2 AND target = $3', [key.ringId, key.channel, key.target]);
  return r && toRecord(r);
}

export async function settleSend(db: Db, key: SendKey, delivered: boolean, detail: string, now: number): Promise<void> {
  await db.write((tx) => tx.run(
    "UPDATE ring_sends SET status = $4, detail = $5, settled_at = $6 WHERE ring_id = $1 AND channel = $2 AND target = $3 AND status = 'sending'",
    [key.ringId, key.channel, key.target, delivered ? 'delivered' : 'undelivered', detail.slice(0, 200), now],
  ));
}

/** Retention: a closed ticket's send records go with it. */
export async function deleteTicketSends(tx: Tx, ticketId: string): Promise<void> {
  await tx.run('DELETE FROM ring_sends WHERE ticket_id = $1', [ticketId]);
}
