// Retention (PRODUCT.md §15): how long each kind of record outlives its use, and the sweeps that
// delete what is older. The one place to read what the store forgets and when; maintenance runs
// `sweepExpiredRecords` hourly on every node, and a second node's sweep finds nothing left to do.
// Each rule deletes by one time column, through an index on it, in a transaction of its own, so
// a long delete of one table never holds another's.
//
// Kept without a sweep: tickets and their rings (kept for analytics; PRODUCT.md §15 leaves the
// period to configuration, not built yet), queue counters (one row per queue and day), displays
// and announcements (a deleted or expired one is still readable by id), push subscriptions (erased
// when their ticket closes, with the ticket's send records: erase-ring-targets.ts).
import type { Db, Tx } from '../core/db.ts';
import { IDEMPOTENCY_TTL_MS } from './idempotency.ts';

const HOUR = 3600_000;
const DAY = 24 * HOUR;

/** How long after its time column a record is deleted. */
const RETENTION_MS = {
  /** Replays of a request: the 24 hours an integrator may retry with the same key. */
  idempotencyKeys: IDEMPOTENCY_TTL_MS,
  /** GET /v1/events promises 30 days. */
  events: 30 * DAY,
  /** Deliveries and their attempt logs live as long as their events. */
  webhookDeliveries: 30 * DAY,
  /** Finished jobs (unfinished ones are never swept): a week to look into what ran. */
  finishedJobs: 7 * DAY,
  /**
   * Confirmations from pages and boards, and push/SMS send claims: records that keep one ring
   * from reaching a customer twice through a channel. Only a ring still running reads them, and
   * a ring runs only while its ticket is open (72 hours at most, expiry_hours' maximum) plus its
   * job's retries; a week after they were written nothing can ask. A ring's outcome stays on the
   * ring itself (rings.result), kept with its ticket. Send records usually go sooner, when their
   * ticket closes; this catches those claimed after the close.
   */
  ringDeliveries: 7 * DAY,
  ringSends: 7 * DAY,
  /** Sessions a day past their absolute end or their revocation: only clutter. */
  sessions: 1 * DAY,
  /**
   * A ticket's Google Wallet pass object (google-wallet-objects.ts): forgotten when the pass shows
   * the close; this catches one whose close never reached the issuer. A ticket is open 72 hours at
   * most, so a week after the first save link its ticket is long closed.
   */
  googleWalletObjects: 7 * DAY,
  /**
   * Wallet passes: their ticket is closed within 72 hours of the pass (expiry_hours' maximum) and
   * the pass voided; a month on, a phone still asking for it is told nothing (401). Registrations
   * go two minutes after the close (channels/wallet/close-job.ts); this catches any left behind.
   */
  walletPasses: 30 * DAY,
  walletRegistrations: 7 * DAY,
  /**
   * Stripe event ids already acted on (billing, decision 0084): Stripe retries an event for three
   * days; a month on, a repeat would only read the subscription back and change nothing anyway.
   */
  stripeEvents: 30 * DAY,
  /** Emailed links (verification, password reset): a day past their expiry, used or not (decision 0081). */
  emailLinks: 1 * DAY,
} as const;

type RetainedRecords = keyof typeof RETENTION_MS;
/** Rows deleted per kind of record by one sweep. */
export type SweepCounts = Record<RetainedRecords, number>;

type Rule = (tx: Tx, before: number) => Promise<number>;

const RULES: Record<RetainedRecords, Rule> = {
  idempotencyKeys: (tx, before) => tx.run('DELETE FROM idempotency_keys WHERE created_at < $1', [before]),
  events: (tx, before) => tx.run('DELETE FROM events WHERE created_at < $1', [before]),
  webhookDeliveries: async (tx, before) => {
    await tx.run('DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM webhook_deliveries WHERE created_at < $1)', [before]);
    return tx.run('DELETE FROM webhook_deliveries WHERE created_at < $1', [before]);
  },
  finishedJobs: (tx, before) => tx.run('DELETE FROM jobs WHERE done_at IS NOT NULL AND done_at < $1', [before]),
  ringDeliveries: (tx, before) => tx.run('DELETE FROM ring_deliveries WHERE delivered_at < $1', [before]),
  ringSends: (tx, before) => tx.run('DELETE FROM ring_sends WHERE claimed_at < $1', [before]),
  sessions: (tx, before) => tx.run('DELETE FROM sessions WHERE expires_at < $1 OR revoked_at < $1', [before]),
  googleWalletObjects: (tx, before) => tx.run('DELETE FROM google_wallet_objects WHERE created_at < $1', [before]),
  walletPasses: (tx, before) => tx.run('DELETE FROM wallet_passes WHERE created_at < $1', [before]),
  walletRegistrations: (tx, before) => tx.run('DELETE FROM wallet_registrations WHERE created_at < $1', [before]),
  stripeEvents: (tx, before) => tx.run('DELETE FROM stripe_events WHERE received_at < $1', [before]),
  emailLinks: (tx, before) => tx.run('DELETE FROM email_links WHERE expires_at < $1', [before]),
};

/** Deletes every record past its retention at `now`; returns how many of each kind went. */
export async function sweepExpiredRecords(db: Pick<Db, 'write'>, now: number): Promise<SweepCounts> {
  const counts = {} as SweepCounts;
  for (const kind of Object.keys(RULES) as RetainedRecords[]) {
    counts[kind] = await db.write((tx) => RULES[kind](tx, now - RETENTION_MS[kind]));
  }
  return counts;
}
