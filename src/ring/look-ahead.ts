// The ringer's look-ahead (who is connected), asked before the transaction that starts a ready's
// or a manual ring's ring (decision 0006, "Nobody to reach: one transaction").
import type { RingOutcome, RingRequest, Ringer, RingTarget } from '../core/ring.ts';

/** How long a ready waits for the look-ahead before its transaction: a Redis round trip is far less. */
export const LOOK_AHEAD_WAIT_MS = 50;

/**
 * When it says that no channel has anyone to try (no page open, no board to speak, no push
 * subscription, no SMS to send), the first attempt's outcome is known without contacting anyone,
 * and the ring is completed, ticket.rung included, in the transaction that starts it: no in-line
 * attempt, no second transaction, no job. A look-ahead that failed or did not answer in time
 * changes nothing: the ring goes the usual way.
 */
export class RingLookAhead {
  private check: ((request: RingRequest) => RingOutcome | null) | null = null;
  /** Resolves when the look-up answered, failed or ran out of time; never rejects. */
  readonly settled: Promise<void>;

  constructor(ringer: Ringer, target: RingTarget, maxWaitMs: number = LOOK_AHEAD_WAIT_MS) {
    const pending = ringer.lookAhead?.(target);
    if (pending === undefined) {
      this.settled = Promise.resolve();
      return;
    }
    this.settled = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, maxWaitMs);
      timer.unref();
      pending
        .then(
          (check) => {
            this.check = check;
          },
          () => {},
        )
        .finally(() => {
          clearTimeout(timer);
          resolve();
        });
    });
  }

  /** The first attempt's whole outcome when nobody can be reached; null otherwise or when unknown. */
  outcome(request: RingRequest): RingOutcome | null {
    return this.check === null ? null : this.check(request);
  }
}

/**
 * Starts the look-up and resolves once it has settled. The caller awaits it before its
 * transaction, which itself never waits on Redis.
 */
export async function lookAhead(ringer: Ringer, target: RingTarget): Promise<RingLookAhead> {
  const look = new RingLookAhead(ringer, target);
  await look.settled;
  return look;
}
