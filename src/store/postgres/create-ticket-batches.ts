// Group commit for creates on PostgreSQL: creates that arrive while a batch is being written wait
// and then go together, so they share the round trips, the commit and the WAL flush, and each
// queue's counter is moved once for all of them. Under light load a create finds the slot free
// and runs at once, alone.
import pg from 'pg';

/** Runs creates together: one result per input, in order. */
export type RunCreates<I, O> = (items: readonly I[]) => Promise<O[]>;

/** Where a create's writes may meet another create's in one statement. */
export type Place = {
  /** Branch, mode and queue: a batch takes one business day of each (see the statements' lock order). */
  queue: string;
  day: string;
  /** Its Idempotency-Key, scoped: two creates with one key never share a statement. */
  key: string | null;
};

type Pending<I, O> = {
  input: I;
  place: Place;
  resolve: (r: O) => void;
  reject: (err: unknown) => void;
};

export type BatchOptions = {
  /** Batches written at once; the rest of the pool stays free for everything else. */
  slots: number;
  maxBatch: number;
  /** Told the size of every batch (metrics). */
  onBatch?: (creates: number) => void;
};

export class CreateTicketBatches<I, O> {
  private waiting: Array<Pending<I, O>> = [];
  private running = 0;
  private readonly runCreates: RunCreates<I, O>;
  private readonly opts: BatchOptions;

  constructor(runCreates: RunCreates<I, O>, opts: BatchOptions) {
    this.runCreates = runCreates;
    this.opts = opts;
  }

  run(input: I, place: Place): Promise<O> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ input, place, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.running < this.opts.slots && this.waiting.length > 0) {
      const batch = this.take();
      this.running++;
      void this.flush(batch);
    }
  }

  private release(): void {
    this.running--;
    this.pump();
  }

  /** The oldest waiting creates, at most one business day per queue and one create per key. */
  private take(): Array<Pending<I, O>> {
    const days = new Map<string, string>();
    const keys = new Set<string>();
    const batch: Array<Pending<I, O>> = [];
    const rest: Array<Pending<I, O>> = [];
    for (const p of this.waiting) {
      const { queue, day, key } = p.place;
      const taken = days.get(queue);
      if (batch.length >= this.opts.maxBatch || (taken !== undefined && taken !== day) || (key !== null && keys.has(key))) {
        rest.push(p);
        continue;
      }
      days.set(queue, day);
      if (key !== null) keys.add(key);
      batch.push(p);
    }
    this.waiting = rest;
    return batch;
  }

  private async flush(batch: Array<Pending<I, O>>): Promise<void> {
    this.opts.onBatch?.(batch.length);
    let results: O[];
    try {
      results = await this.runCreates(batch.map((p) => p.input));
    } catch (err) {
      // An error the server reports means the statement, and so every create in it, was rolled
      // back: each is tried again alone, once, so that one bad create does not fail the others
      // (and a create whose key another node recorded meanwhile finds it taken, and replays).
      // Any other error (a connection lost) leaves the outcome unknown, and nothing is tried again.
      if (err instanceof pg.DatabaseError) {
        await Promise.all(
          batch.map(async (p) => {
            try {
              p.resolve((await this.runCreates([p.input]))[0]!);
            } catch (e) {
              p.reject(e);
            }
          }),
        );
      } else {
        for (const p of batch) p.reject(err);
      }
      this.release();
      return;
    }
    // The next batch is sent before these creates are answered: answering them is this node's
    // work and writing the next one the server's, so the two overlap instead of taking turns
    // (measured: one slot then keeps PostgreSQL and the node busy at once).
    this.release();
    for (const [i, p] of batch.entries()) p.resolve(results[i]!);
  }
}
