// When a failed delivery is tried again (PRODUCT.md §6). Pure, so the schedule is unit-tested
// without a clock or a receiver.

/** Waits after the 1st, 2nd, … failed attempt; after the last one the delivery has failed. */
export const RETRY_DELAYS_MS: readonly number[] = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3600_000,
  5 * 3600_000,
  10 * 3600_000,
  10 * 3600_000,
];

/** Every delivery gets this many automatic attempts: the first plus one per delay. */
export const MAX_AUTOMATIC_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

export const JITTER = 0.1;

/**
 * A receiver's Retry-After is honoured up to this: a receiver asking for a week would otherwise
 * park deliveries past the events' 30-day retention.
 */
export const MAX_RETRY_AFTER_MS = 24 * 3600_000;

/** An endpoint whose every attempt failed for this long is disabled. */
export const FAILING_ENDPOINT_DISABLE_MS = 3 * 24 * 3600_000;

/**
 * Milliseconds to wait after automatic attempt number `attempt` (1-based) failed, or null when it
 * was the last. `retryAfterMs` (from the receiver) wins when it asks for longer than the schedule.
 * `random` is in [0, 1): jitter spreads retries so a receiver that was down is not hit by every
 * queued delivery at the same instant when it comes back.
 */
export function retryDelayMs(attempt: number, retryAfterMs: number | null, random: number = Math.random()): number | null {
  if (!Number.isInteger(attempt) || attempt < 1) throw new RangeError(`attempt must be a positive integer, got ${attempt}`);
  const base = RETRY_DELAYS_MS[attempt - 1];
  if (base === undefined) return null;
  const jittered = Math.round(base * (1 + (random * 2 - 1) * JITTER));
  if (retryAfterMs !== null && retryAfterMs > jittered) return Math.min(retryAfterMs, MAX_RETRY_AFTER_MS);
  return jittered;
}

/**
 * Retry-After as delay-seconds or an HTTP-date (RFC 9110 §10.2.3), in milliseconds from `nowMs`;
 * null when absent or unreadable (an unreadable header is ignored, not an error).
 */
export function parseRetryAfter(value: string | string[] | undefined, nowMs: number): number | null {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined) return null;
  const v = raw.trim();
  if (/^\d{1,10}$/.test(v)) return Number(v) * 1000;
  // Date.parse also takes ISO and other shapes; HTTP-dates always name a weekday and a month.
  if (!/^[A-Za-z]{3},? /.test(v)) return null;
  const at = Date.parse(v);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - nowMs);
}
