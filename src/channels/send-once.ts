// "Claimed before sending": a send to one target for one ring happens at most once, whichever
// attempt (the in-line ring under its deadline, the outbox job, another node) gets there first.
// The loser never sends; it waits for the winner's recorded outcome, or gives up at the deadline.
//
// A send that was cut off by the ring deadline keeps running in the background and records its
// outcome when it ends: aborting an HTTP request that a push service or SMS provider may already
// have accepted would only lose the knowledge of whether it was delivered.
//
// A sender can still die between sending and recording (a crash, a kill). Its claim then stays
// `sending` and nobody can know whether the request went out. Once the claim is older than any
// live send can take (STALE_CLAIM_FACTOR times the send timeout), one asker takes it over and
// does what the channel declared safe (decision 0007): send again, where the device dedupes the
// repeat (Web Push), or record the outcome as unknown (SMS), never as "not reached".
import type { Db } from '../core/db.ts';
import type { Clock } from '../core/clock.ts';
import { claimSend, getSend, settleSend, takeOverSend, type SendKey, type SendRecord } from '../store/ring-sends.ts';
import { observeRingDelivery } from '../metrics.ts';
import type { Metrics } from '../core/metrics.ts';

/** delivered null: unknown (the sender died mid-send and the send cannot be repeated). */
export type SendOutcome = { delivered: boolean | null; detail: string };

/**
 * What an asker does with a claim whose sender died: `resend` when the device recognises a
 * repeat of the same ring and alerts once, `unknown` when a repeat would reach the customer twice.
 */
export type AbandonedSend = 'resend' | 'unknown';

/** sendTimeoutMs: the bound on one send (RING_SEND_TIMEOUT_MS), which the stale limit follows. */
export type SendOnceDeps = { db: Db; clock: Clock; sendTimeoutMs: number; metrics?: Metrics };

/**
 * A claim unsettled for this many send timeouts belongs to a sender that died: a live one has
 * finished (its request is bounded by the timeout) and recorded the outcome long before.
 */
export const STALE_CLAIM_FACTOR = 3;
export const staleClaimMs = (sendTimeoutMs: number): number => STALE_CLAIM_FACTOR * sendTimeoutMs;
const POLL_MS = 50;
const UNKNOWN_DETAIL = 'unknown: an earlier attempt stopped mid-send';
const RESENT = 're-sent: an earlier attempt stopped mid-send';

// Sends started by this process, so a second attempt here awaits the promise instead of polling.
const inFlight = new Map<string, Promise<SendOutcome>>();
const keyString = (k: SendKey): string => `${k.ringId}\u0000${k.channel}\u0000${k.target}`;

const fromRecord = (r: SendRecord): SendOutcome => ({
  delivered: r.status === 'unknown' ? null : r.status === 'delivered',
  detail: r.detail ?? r.status,
});

function untilAborted(signal: AbortSignal): Promise<null> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(null);
    else signal.addEventListener('abort', () => resolve(null), { once: true });
  });
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Runs `send` if this call wins the claim on `key`; otherwise returns the winner's outcome.
 * Resolves null when the signal aborts before an outcome is known (the ring is then incomplete
 * and the outbox job asks again later).
 */
export async function sendOnce(
  deps: SendOnceDeps,
  key: SendKey,
  ticketId: string,
  signal: AbortSignal,
  abandoned: AbandonedSend,
  send: () => Promise<SendOutcome>,
): Promise<SendOutcome | null> {
  const now = deps.clock.now();
  const existing = await claimSend(deps.db, key, ticketId, now);
  if (existing === null) return Promise.race([start(deps, key, now, send), untilAborted(signal)]);
  return awaitOutcome(deps, key, existing, signal, abandoned, send);
}

/** Sends as the owner of the claim made at `claimedAt`, and records the outcome in it. */
function start(deps: SendOnceDeps, key: SendKey, claimedAt: number, send: () => Promise<SendOutcome>, note?: string): Promise<SendOutcome> {
  const id = keyString(key);
  const work = send()
    .catch((err: unknown): SendOutcome => ({ delivered: false, detail: `error: ${(err as Error).message}`.slice(0, 200) }))
    .then(async (sent) => {
      const outcome = note === undefined ? sent : { ...sent, detail: `${sent.detail}; ${note}` };
      await settleSend(deps.db, key, claimedAt, outcome.delivered === true, outcome.detail, deps.clock.now()).catch(() => {});
      if (outcome.delivered === true) observeRingDelivery(deps.metrics, key.channel, key.ringId, deps.clock.now());
      return outcome;
    })
    .finally(() => inFlight.delete(id));
  inFlight.set(id, work);
  return work;
}

async function awaitOutcome(
  deps: SendOnceDeps,
  key: SendKey,
  first: SendRecord,
  signal: AbortSignal,
  abandoned: AbandonedSend,
  send: () => Promise<SendOutcome>,
): Promise<SendOutcome | null> {
  let record: SendRecord | undefined = first;
  const aborted = untilAborted(signal);
  for (;;) {
    if (record === undefined) return { delivered: false, detail: 'erased' }; // the ticket closed meanwhile
    if (record.status !== 'sending') return fromRecord(record);
    const now = deps.clock.now();
    if (now - record.claimedAt > staleClaimMs(deps.sendTimeoutMs)) {
      // Of several askers, the one whose conditional update wins acts; the others read its claim.
      if (abandoned === 'unknown') {
        if (await takeOverSend(deps.db, key, record.claimedAt, now, UNKNOWN_DETAIL)) return { delivered: null, detail: UNKNOWN_DETAIL };
      } else if (await takeOverSend(deps.db, key, record.claimedAt, now)) {
        return Promise.race([start(deps, key, now, send, RESENT), aborted]);
      }
      record = await getSend(deps.db, key);
      continue;
    }
    const local = inFlight.get(keyString(key));
    if (local !== undefined) return Promise.race([local, aborted]);
    if (signal.aborted) return null;
    await Promise.race([sleep(POLL_MS), aborted]);
    if (signal.aborted) return null;
    record = await getSend(deps.db, key);
  }
}
