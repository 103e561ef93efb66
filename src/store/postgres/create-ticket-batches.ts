// Group commit for the statement create: creates that arrive while earlier statements are still
// running wait and then go together, so they share the round trips, the commit and the WAL flush,
// and each queue's counter is moved once for all of them. Under light load a create finds a free
// slot and runs at once, alone.
import pg from 'pg';
import type { CreateStatementInput, CreateStatementResult } from './create-ticket-statement.ts';

/** Runs creates together (runCreateStatement): one result per input, in order. */
export type RunCreates = (items: readonly CreateStatementInput[]) => Promise<Array<CreateStatementResult | undefined>>;

type Pending = {
  input: CreateStatementInput;
  /** branch, mode and queue: a statement takes one business day of each. */
  queueKey: string;
  resolve: (r: CreateStatementResult | undefined) => void;
  reject: (err: unknown) => void;
};

export type BatchOptions = {
  /** Statements run at once; the rest of the pool stays free for everything else. */
  slots: number;
  maxBatch: number;
  /** Told the size of every batch (metrics). */
  onBatch?: (creates: number) => void;
};

export class CreateTicketBatches {
  private waiting: Pending[] = [];
  private running = 0;
  private readonly runCreates: RunCreates;
  private readonly opts: BatchOptions;

  constructor(runCreates: RunCreates, opts: BatchOptions) {
    this.runCreates = runCreates;
    this.opts = opts;
  }

  run(input: CreateStatementInput, queueKey: string): Promise<CreateStatementResult | undefined> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ input, queueKey, resolve, reject });
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

  /** The oldest waiting creates, at most one business day per queue (see the statement's lock order). */
  private take(): Pending[] {
    const days = new Map<string, string>();
    const batch: Pending[] = [];
    const rest: Pending[] = [];
    for (const p of this.waiting) {
      const day = days.get(p.queueKey);
      if (batch.length >= this.opts.maxBatch || (day !== undefined && day !== p.input.day)) {
        rest.push(p);
        continue;
      }
      days.set(p.queueKey, p.input.day);
      batch.push(p);
    }
    this.waiting = rest;
    return batch;
  }

  private async flush(batch: Pending[]): Promise<void> {
    this.opts.onBatch?.(batch.length);
    let results: Array<CreateStatementResult | undefined>;
    try {
      results = await this.runCreates(batch.map((p) => p.input));
    } catch (err) {
      // An error the server reports means the statement, and so every create in it, was rolled
      // back: each is tried again alone, so that one bad create does not fail the others. Any
      // other error (a connection lost) leaves the outcome unknown, and nothing is tried again.
      if (batch.length > 1 && err instanceof pg.DatabaseError) {
        await Promise.all(
          batch.map(async (p) => {
            try {
              p.resolve((await this.runCreates([p.input]))[0]);
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
    // The next statement is sent before these creates are answered: answering them is this
    // node's work and running the next one the server's, so the two overlap instead of taking
    // turns (measured: one slot then keeps PostgreSQL and the node busy at once).
    this.release();
    batch.forEach((p, i) => p.resolve(results[i]));
  }
}
