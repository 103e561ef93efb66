// The contract between createTicket, which decides every row a create writes, and the store,
// which finds what the rows depend on (the branch, the queue, its next number, the webhook
// endpoints) and commits them: in one transaction on SQLite (store/sqlite/create-transaction.ts),
// in statements shared by the creates that arrive together on PostgreSQL
// (store/postgres/create-statements.ts). Each engine's Db offers its way as Db.commitCreate (the
// port, core/db.ts); both are held to the same tests (test/api/create-ticket.test.ts).
import type { EventWrites } from './events.ts';
import type { Mode } from './tenancy.ts';
import type { Committed, KeyToRecord } from './write-commit.ts';

/** What the store found for a create, as of its commit. */
export type CreateFound = {
  /** The queue asked for, or the branch's default queue. */
  queue: string;
  /** The display number taken for the ticket: the queue's next for the business day of `at`, held by no open ticket. */
  number: number;
  expiryHours: number;
  /** The branch's time zone, as read for the business day the number belongs to. */
  timeZone: string;
};

/**
 * Where a create writes: rows only. Everything inserted here commits together, with the key's
 * record when the create has one, or nothing does. What follows the commit is the create's own,
 * run once commitCreate has returned 'done' (src/actions/create-ticket.ts).
 */
export type CreateWrites = Pick<EventWrites, 'subscribers' | 'insert'>;

export type CreateRequest = {
  branchId: string;
  mode: Mode;
  /** Null: the branch's default queue. */
  queue: string | null;
  /** When the create happens: its business day (in the branch's time zone) numbers the ticket. */
  at: number;
  /** Recorded with the create's rows, with its answer: the create is written only if the key is free. */
  key: KeyToRecord | null;
  /**
   * Writes every row of the create, given what was found, and answers the response body (stored
   * under the key). Called once the number is taken; may be called again with another number.
   */
  build(found: CreateFound, out: CreateWrites): Promise<string>;
};

export type CreateOutcome =
  /** 'done' with the answer, or 'key-taken': the key holds another request's record, and nothing of this create was written. */
  | Committed
  /** Nothing was written. */
  | { kind: 'unknown-queue'; queue: string };
