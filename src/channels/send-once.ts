// "Claimed before sending": a send to one target for one ring happens at most once, whichever
// attempt (the in-line ring under its deadline, the outbox job, another node) gets there first.
// The loser never sends; it waits for the winner's recorded outcome, or gives up at the deadline.
//
// A send that was cut off by the ring deadline keeps running in the background and records its
// outcome when it ends: aborting an HTTP request that a push service or SMS provider may already
// have accepted would only lose the knowledge of whether it was delivered.
import type { Db } from '../store/db.ts';
import type { Clock } from '../actions/ctx.ts';
import { claimSend, getSend, settleSend, type SendKey, type SendRecord } from '../store/ring-sends.ts';

export type SendOutcome = { delivered: boolean; detail: string };

export type SendOnceDeps = { db: Db; clock: Clock };

/** A claim older than this that never settled belongs to an attempt that died mid-send. */
export const STALE_CLAIM_MS = 60_000;
const POLL_MS = 50;

// Sends started by this process, so a second attempt here awaits the promise instead of polling.
const inFlight = new Map<string, Promise<SendOutcome>>();
const keyString = (k: SendKey): string => `${k.ringId}\u0000${k.channel}\u0000${k.target}`;

const fromRecord = (r: SendRecord): SendOutcome => ({ delivered: r.status === 'delivered', detail: r.detail ?? r.status });

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
  deps: SendOnceDeps, key: SendKey, ticketId: string, signal: AbortSignal, send: () => Promise<SendOutcome>,
): Promise<SendOutcome | null> {
  const existing = await claimSend(deps.db, key, ticketId, deps.clock.now());
  if (existing === null) {
    const id = keyString(key);
    const work = send()
      .catch((err: unknown): SendOutcome => ({ delivered: false, detail: `error: ${(err as Error).message}`.slice(0, 200) }))
      .then(async (outcome) => {
        await settleSend(deps.db, key, outcome.delivered, outcome.detail, deps.clock.now()).catch(() => {});
        return outcome;
      })
      .finally(() => inFlight.delete(id));
    inFlight.set(id, work);
    return Promise.race([work, untilAborted(signal)]);
  }
  return awaitOutcome(deps, key, existing, signal);
}

async function awaitOutcome(deps: SendOnceDeps, key: SendKey, first: SendRecord, signal: AbortSignal): Promise<SendOutcome | null> {
  let record: SendRecord | undefined = first;
  const aborted = untilAborted(signal);
  for (;;) {
    if (record === undefined) return { delivered: false, detail: 'erased' }; // the ticket closed meanwhile
    if (record.status !== 'sending') return fromRecord(record);
    if (deps.clock.now() - record.claimedAt > STALE_CLAIM_MS) {
      // Never resend: the dead attempt may have delivered it. Unknown counts as not reached.
      return { delivered: false, detail: 'unknown: an earlier attempt stopped mid-send' };
    }
    const local = inFlight.get(keyString(key));
    if (local !== undefined) return Promise.race([local, aborted]);
    if (signal.aborted) return null;
    await Promise.race([sleep(POLL_MS), aborted]);
    if (signal.aborted) return null;
    record = await getSend(deps.db, key);
  }
}
