// A create on PostgreSQL: in the two statements of create-statements.ts, shared with the creates
// that arrive meanwhile (create-ticket-batches.ts), instead of a transaction of its own that
// pays a round trip per statement and a WAL flush per create
// (docs/decisions/0010-one-create-path.md).
import type { CreateOutcome, CreateRequest, CreateWrites } from '../../core/ticket-create.ts';
import type { RowWrite } from '../../core/events.ts';
import { fromJson, one } from '../db.ts';
import type { Row } from '../../core/db.ts';
import { keyRecord, keyRecordRow } from '../idempotency.ts';
import { businessDay } from '../../domain/business-day.ts';
import { withDefaults } from '../../domain/branch-settings.ts';
import { CreateTicketBatches } from './create-ticket-batches.ts';
import {
  insertCreates,
  numberCreates,
  subscribersOf,
  type CreateRows,
  type NumberingInput,
  type StatementsDb,
} from './create-statements.ts';

/**
 * What a create needs from its branch before it can be numbered, as last read. Never trusted: the
 * numbering statement compares it with the branch row and takes no number when it is stale, so a
 * change made on any node is honoured by the next create.
 */
type Snapshot = {
  timezone: string;
  /** The settings column's text, compared as is. */
  settings: string;
  defaultQueue: string;
  expiryHours: number;
};

const MAX_SNAPSHOTS = 10_000;
/**
 * Rounds a create may take: a stale snapshot or a held number each cost one. A held number moves
 * the queue's counter on, so those rounds end once the numbers still open since earlier days are
 * passed (a shop open past midnight may hold dozens); the bound only stops a runaway.
 */
const MAX_ROUNDS = 10_000;

// One batch at a time, up to 64 creates: measured on 2 cores, a second batch in flight splits the
// waiting creates into smaller batches and costs more per create on both sides than it gains by
// overlapping; the node answers one batch while PostgreSQL writes the next, so neither waits.
const BATCHES = { slots: 1, maxBatch: 64 };

type Settled = { ok: true; outcome: CreateOutcome } | { ok: false; error: unknown };

/** A PostgreSQL store's creates (PostgresDb.commitCreate): its batches, and its copies of the branches. */
export class PostgresCreates {
  private readonly db: StatementsDb;
  private readonly snapshots = new Map<string, Snapshot>();
  private readonly batches: CreateTicketBatches<CreateRequest, Settled>;

  constructor(db: StatementsDb) {
    this.db = db;
    this.batches = new CreateTicketBatches((items) => this.write(items), { ...BATCHES, onBatch: (n) => db.onGroupCommit?.(n) });
  }

  /** Commits one create, in the next batch it can share. */
  async commit(req: CreateRequest): Promise<CreateOutcome> {
    const snap = await this.snapshot(req.branchId);
    if (snap === undefined) throw new Error(`branch ${req.branchId} does not exist`);
    // Where it may share a statement: computed from the snapshot, which the numbering checks.
    const input = numberingInput(req, snap);
    const r = await this.batches.run(req, {
      queue: `${req.branchId}\u0000${req.mode}\u0000${input.queue}`,
      day: input.day,
      key: req.key === null ? null : `${req.branchId}\u0000${req.mode}\u0000${req.key.key}`,
    });
    if (!r.ok) throw r.error;
    return r.outcome;
  }

  private async snapshot(branchId: string): Promise<Snapshot | undefined> {
    const known = this.snapshots.get(branchId);
    if (known !== undefined) return known;
    const r = await one<Row & { timezone: string; settings: string; default_queue: string }>(
      this.db,
      'SELECT timezone, settings, default_queue FROM branches WHERE id = $1',
      [branchId],
    );
    return r && this.remember(branchId, { timezone: r.timezone, settings: r.settings, defaultQueue: r.default_queue });
  }

  private remember(branchId: string, row: Omit<Snapshot, 'expiryHours'>): Snapshot {
    if (this.snapshots.size >= MAX_SNAPSHOTS) this.snapshots.clear();
    const snap = { ...row, expiryHours: withDefaults(fromJson(row.settings, {})).expiry_hours };
    this.snapshots.set(branchId, snap);
    return snap;
  }

  /**
   * Writes a batch of creates in rounds: the creates still to write are numbered (statement 1),
   * describe their rows, and are written (statement 2). A create comes back for another round
   * when the node's copy of its branch was stale (numbered with the row's values next) or when an
   * open ticket holds its number (the next one then).
   */
  private async write(items: readonly CreateRequest[]): Promise<Settled[]> {
    const settled: Array<Settled | undefined> = items.map(() => undefined);
    let pending = items.map((_, index) => index);
    for (let round = 0; pending.length > 0; round++) {
      if (round >= MAX_ROUNDS) {
        for (const index of pending) settled[index] = { ok: false, error: new Error(`could not write a create in ${MAX_ROUNDS} rounds`) };
        break;
      }
      pending = await this.round(items, pending, settled);
    }
    return settled.map((s) => s!);
  }

  /** One round of `write` for the creates at `indexes`; answers those to try again. */
  private async round(items: readonly CreateRequest[], indexes: readonly number[], settled: Array<Settled | undefined>): Promise<number[]> {
    const again: number[] = [];
    const asked: Array<{ index: number; input: NumberingInput; snap: Snapshot }> = [];
    for (const index of indexes) {
      const req = items[index]!;
      // Read again if it was dropped meanwhile (the map is cleared when full).
      const snap = this.snapshots.get(req.branchId) ?? (await this.snapshot(req.branchId));
      if (snap === undefined) {
        settled[index] = { ok: false, error: new Error(`branch ${req.branchId} does not exist`) };
        continue;
      }
      try {
        asked.push({ index, snap, input: numberingInput(req, snap) });
      } catch (error) {
        settled[index] = { ok: false, error }; // an invalid time zone: as a transaction's create fails
      }
    }
    if (asked.length === 0) return again;

    const { results, subscribers } = await numberCreates(
      this.db,
      asked.map((a) => a.input),
    );
    const built: Array<{ index: number; rows: CreateRows; answer: string }> = [];
    for (const [i, r] of results.entries()) {
      const { index, input, snap } = asked[i]!;
      const req = items[index]!;
      if (r.kind === 'stale') {
        this.remember(input.branchId, r.branch);
        again.push(index);
      } else if (r.kind === 'no-branch') {
        this.snapshots.delete(input.branchId);
        settled[index] = { ok: false, error: new Error(`branch ${input.branchId} does not exist`) };
      } else if (r.kind === 'unknown-queue') {
        settled[index] = { ok: true, outcome: { kind: 'unknown-queue', queue: input.queue } };
      } else if (r.kind === 'key-taken') {
        settled[index] = { ok: true, outcome: { kind: 'key-taken' } };
      } else {
        // Numbered: the create describes its rows, with its endpoints as read with its number.
        const rows: RowWrite[] = [];
        const out: CreateWrites = {
          subscribers: subscribersOf(subscribers, input.branchId, input.mode),
          insert: async (row) => void rows.push(row),
        };
        try {
          const answer = await req.build(
            { queue: input.queue, number: r.number, expiryHours: snap.expiryHours, timeZone: snap.timezone },
            out,
          );
          const record = keyRecord(req.key, req, { body: answer });
          const key = record === null ? null : keyRecordRow(record);
          built.push({ index, rows: { rows, key }, answer });
        } catch (error) {
          settled[index] = { ok: false, error };
        }
      }
    }
    if (built.length === 0) return again;

    const held = await insertCreates(
      this.db,
      built.map((b) => b.rows),
    );
    built.forEach((b, i) => {
      if (held.has(i)) again.push(b.index);
      else settled[b.index] = { ok: true, outcome: { kind: 'done', answer: b.answer } };
    });
    return again;
  }
}

function numberingInput(req: CreateRequest, snap: Snapshot): NumberingInput {
  return {
    branchId: req.branchId,
    mode: req.mode,
    queue: req.queue ?? snap.defaultQueue,
    day: businessDay(req.at, snap.timezone),
    timezone: snap.timezone,
    settings: snap.settings,
    queueGiven: req.queue !== null,
    key: req.key === null ? null : req.key.key,
    at: req.at,
  };
}
