// A ring's outcome as its records tell it: the sends claimed for it (push, the paid channels) and the
// confirmations of its page and boards. Used instead of asking the channels when the ticket
// closed while the ring was still open (a push slower than the deadline, then a collect): nothing
// is sent to a closed ticket, and what had already reached the customer is still recorded as such.
import type { ChannelAttempt, RingOutcome } from '../core/ring.ts';
import { ATTEMPT_ORDER, summarizeRing } from '../domain/ring-policy.ts';
import type { SendRecord } from '../store/ring-sends.ts';

const UNKNOWN_DETAIL = 'unknown: a send stopped mid-way and the ticket closed';

type Sent = Pick<SendRecord, 'status' | 'detail' | 'claimedAt'> & { channel: string };

/**
 * `confirmed`: channels whose page or board confirmed the ring. A send still `sending` keeps the
 * ring open (`sending`), unless its claim is older than `staleMs`: its sender died, and a ring of
 * a closed ticket is never sent again, so its outcome is unknown.
 */
export function outcomeFromRecords(sends: readonly Sent[], confirmed: readonly string[], now: number, staleMs: number): RingOutcome {
  const attempts: ChannelAttempt[] = [];
  let sending = false;
  for (const channel of ATTEMPT_ORDER) {
    if (confirmed.includes(channel)) {
      attempts.push({ channel, delivered: true });
      continue;
    }
    const mine = sends.filter((s) => s.channel === channel);
    if (mine.length === 0) continue;
    const delivered = mine.find((s) => s.status === 'delivered');
    const inFlight = mine.some((s) => s.status === 'sending' && now - s.claimedAt <= staleMs);
    if (delivered !== undefined)
      attempts.push({ channel, delivered: true, ...(delivered.detail === null ? {} : { detail: delivered.detail }) });
    else if (inFlight) sending = true;
    else if (mine.some((s) => s.status === 'unknown' || s.status === 'sending'))
      attempts.push({ channel, delivered: null, detail: UNKNOWN_DETAIL });
    else attempts.push({ channel, delivered: false, detail: mine[0]!.detail ?? 'not delivered' });
  }
  return { ...summarizeRing(attempts), attempts, complete: !sending, ...(sending ? { sending: true as const } : {}) };
}
