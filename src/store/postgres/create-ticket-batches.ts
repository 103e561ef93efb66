// Group commit for the one-statement create: creates that arrive while earlier statements are
// still running wait and then go together in one statement, so they share its round trip, its
// commit and its WAL flush, and a queue's counter row is locked once for all of them instead of
// once each (on one queue, creates otherwise run one after another, each holding the lock through
// its commit's flush). Under light load a create finds a free slot and runs at once, alone.
import pg from 'pg';
import type { Queryable } from '../db.ts';
import { runCreateStatement, type CreateStatementConstants, type CreateStatementInput, type CreateStatementResult } from './create-ticket-statement.ts';

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
};

export class CreateTicketBatches {
  private waiting: Pending[] = [];
  private running = 0;
  private readonly db: Queryable;
  private readonly constants: CreateStatementConstants;
  private readonly opts: BatchOptions;

  constructor(db: Queryable, constants: CreateStatementConstants, opts: BatchOptions) {
    this.db = db;
    this.constants = constants;
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
      void this.flush(batch).finally(() => {
        this.running--;
        this.pump();
      });
    }
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
    try {
      const results = await runCreateStatement(this.db, this.constants, batch.map((p) => p.input));
      batch.forEach((p, i) => p.resolve(results[i]));
    } catch (err) {
      // An error the server reports means the statement, and so every create in it, was rolled
      // back: each is tried again alone, so that one bad create does not fail the others. Any
      // other error (a connection lost) leaves the outcome unknown, and nothing is tried again.
      if (batch.length === 1 || !(err instanceof pg.DatabaseError)) {
        for (const p of batch) p.reject(err);
        return;
      }
      await Promise.all(batch.map(async (p) => {
        try {
          p.resolve((await runCreateStatement(this.db, this.constants, [p.input]))[0]);
        } catch (e) {
          p.reject(e);
        }
      }));
    }
  }
}
