// The port actions record events through (PRODUCT.md §6), and the narrow writer a sink writes
// with. Events are recorded by one function (actions/record-event.ts) with one of two writers: an
// action's own transaction, or a create's commit (core/ticket-create.ts), which may share one
// statement with other creates on PostgreSQL. A sink therefore describes rows; it never runs SQL
// of its own.
import type { Ticket } from './ticket.ts';

/**
 * One row to insert: column names as in the schema, values as bound parameters. With `merge`,
 * the row is added into the one with the same `key` columns if it exists ('add': the sum, 'max':
 * the larger; every column is a key or merged), as counters and rollups are: rows of one key
 * written together merge the same way, whichever store writes them.
 */
export type RowWrite = {
  readonly table: string;
  readonly values: Readonly<Record<string, unknown>>;
  readonly merge?: { readonly key: readonly string[]; readonly columns: Readonly<Record<string, 'add' | 'max'>> };
};

/** An event as stored and sent: `body` is the PRODUCT.md §6 envelope, serialised once. */
export type EventRecord = {
  readonly id: string;
  /** Whose event it is: the jobs it sets off count against this account's fair share (decision 0048). */
  readonly accountId: string;
  readonly branchId: string;
  readonly mode: 'live' | 'test';
  readonly type: string;
  readonly createdAt: number;
  readonly body: string;
  /** The ticket the event is about, as it now is (a ticket.* event): what modules' ticket hooks read (core/module.ts). */
  readonly ticket?: Ticket;
  /** Whether a request (a staff page, an API call) made the change, rather than a job. */
  readonly fromRequest?: boolean;
};

/**
 * An enabled webhook endpoint of the event's branch and mode, with the event types it wants, and
 * whether its attempts are failing (a node then runs one of its deliveries at a time).
 */
export type EventSubscriber = { readonly id: string; readonly enabledEvents: readonly string[]; readonly failing: boolean };

/** What a sink writes with; its rows commit with the change that caused the event, or not at all. */
export interface EventWrites {
  /** The enabled endpoints of the event's branch and mode, read by the writer in the same commit. */
  readonly subscribers: readonly EventSubscriber[];
  insert(row: RowWrite): Promise<void>;
  /** Runs once the rows are durably committed (waking a job runner, say). */
  afterCommit(fn: () => void): void;
}

export interface EventSink {
  /**
   * Writes what the event sets off (a webhook delivery and its job per endpoint that wants it),
   * once the event's own row is written with `out`.
   */
  record(event: EventRecord, out: EventWrites): Promise<void>;
}
