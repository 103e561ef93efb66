// POST /v1/tickets on PostgreSQL without an Idempotency-Key: the whole create in the statements
// of create-ticket-statement.ts (its numbers, then everything else), shared with the creates that
// arrive meanwhile, instead of seven round trips of its own in a transaction
// (docs/decisions/0010-postgres-create-one-statement.md). What it
// writes is what createTicket writes, row for row; whatever the statement cannot settle (unknown
// queue, a number held since an earlier day, a missing branch, an event hook other than the
// webhook fan-out) returns null and the caller runs createTicket in a transaction as before, so
// errors and edge cases are exactly that path's.
import { randomBytes } from 'node:crypto';
import type { Ctx, TxCtx } from './ctx.ts';
import type { Db, Row, Tx } from '../store/db.ts';
import { fromJson, one, runAfterCommitHooks } from '../store/db.ts';
import { newId } from '../domain/ids.ts';
import { businessDay } from '../domain/business-day.ts';
import { withDefaults } from '../domain/branch-settings.ts';
import { unnumberedValues, type Ticket } from '../store/tickets.ts';
import { CreateTicketBatches } from '../store/postgres/create-ticket-batches.ts';
import { runCreateStatement, type CreateStore } from '../store/postgres/create-ticket-statement.ts';
import { jobPayloadJson, type ClaimedJob } from '../store/outbox.ts';
import { deliveryJobKey, handOffFor, isWebhookFanOut, leaseFor, WEBHOOK_JOB_KIND, type DeliveryJobPayload } from '../webhooks/fan-out.ts';
import { ALL_EVENTS } from '../webhooks/event-types.ts';
import { newTicket, type CreateTicketInput } from './create-ticket.ts';
import { presentTicket } from './present.ts';
import { eventEnvelope } from './record-event.ts';
import { publishTicket } from './publish.ts';

const EVENT_TYPE = 'ticket.created';

/**
 * What a create needs from its branch, as last read. Never trusted: the statement compares it
 * with the branch row and writes nothing when it is stale, so a change made on any node is
 * honoured by the next create.
 */
type Snapshot = {
  timezone: string;
  /** The settings column's text, compared as is. */
  settings: string;
  defaultQueue: string;
  expiryHours: number;
  /** Delivery ids to bring per mode: at least the endpoints last seen wanting the event. */
  room: Record<string, number>;
};

// One batch at a time, up to 64 creates: measured on 2 cores, a second statement in flight splits
// the waiting creates into smaller batches and costs more per create on both sides (PostgreSQL
// 88 µs of execution per create instead of 60) than it gains by overlapping; the node answers one
// batch while PostgreSQL runs the next (create-ticket-batches.ts), so neither waits for the other.
const BATCHES = { slots: 1, maxBatch: 64 };
const batchesByDb = new WeakMap<Db, CreateTicketBatches>();

function batches(db: Db): CreateTicketBatches {
  let b = batchesByDb.get(db);
  if (b === undefined) {
    const constants = { eventType: EVENT_TYPE, wantedEvents: [ALL_EVENTS, EVENT_TYPE], jobKind: WEBHOOK_JOB_KIND };
    b = new CreateTicketBatches((items) => runCreateStatement(db as CreateStore, constants, items), {
      ...BATCHES,
      onBatch: (n) => db.onGroupCommit?.(n),
    });
    batchesByDb.set(db, b);
  }
  return b;
}

const DEFAULT_ROOM = 2;
/** More endpoints than this wanting ticket.created: the transactional path makes the deliveries. */
const MAX_ROOM = 64;
const MAX_SNAPSHOTS = 10_000;
const snapshotsByDb = new WeakMap<Db, Map<string, Snapshot>>();

function snapshots(db: Db): Map<string, Snapshot> {
  let m = snapshotsByDb.get(db);
  if (m === undefined) snapshotsByDb.set(db, (m = new Map()));
  return m;
}

function remember(
  db: Db,
  branchId: string,
  row: { timezone: string; settings: string; defaultQueue: string },
  room: Record<string, number> = {},
): Snapshot {
  const all = snapshots(db);
  if (all.size >= MAX_SNAPSHOTS) all.clear();
  const snap = { ...row, expiryHours: withDefaults(fromJson(row.settings, {})).expiry_hours, room };
  all.set(branchId, snap);
  return snap;
}

async function readSnapshot(db: Db, branchId: string): Promise<Snapshot | undefined> {
  const r = await one<Row & { timezone: string; settings: string; default_queue: string }>(
    db,
    'SELECT timezone, settings, default_queue FROM branches WHERE id = $1',
    [branchId],
  );
  return r && remember(db, branchId, { timezone: r.timezone, settings: r.settings, defaultQueue: r.default_queue });
}

// The event body is built in JS, as recordEvent builds it, with this in place of the display
// number, which only the statement knows; the body goes to the statement as the text before and
// after it. Random per process, and nothing a client sends comes before it in the body.
const DISPLAY_NUMBER_MARK = `rb-display-number-${randomBytes(12).toString('hex')}`;

/**
 * The ticket created, or null: run createTicket in a transaction instead. Only for a request
 * without an Idempotency-Key (runWrite's `withoutKey`): a key's stored answer must commit with
 * the effect, in createTicket's transaction.
 */
export async function createTicketInOneStatement(ctx: Ctx, input: CreateTicketInput): Promise<Ticket | null> {
  const { db, clock, config, eventHooks } = ctx.services;
  if (db.dialect !== 'postgres') return null;
  // Other hooks expect to run inside the event's transaction; the statement has none to give them.
  if (!eventHooks.every(isWebhookFanOut)) return null;
  const fanOut = eventHooks.length > 0;

  let snap = snapshots(db).get(ctx.branchId) ?? (await readSnapshot(db, ctx.branchId));
  if (snap === undefined) return null;
  const now = clock.now();
  const ticket = newTicket(ctx, input, input.queue ?? snap.defaultQueue, now, snap.expiryHours);
  const eventAt = clock.now();
  const eventId = newId('event', eventAt);
  const lease = fanOut ? leaseFor(ctx) : null;

  // A stale snapshot or too few delivery ids is worth one more try with the answer's figures.
  for (let attempt = 0; attempt < 2; attempt++) {
    ticket.queue = input.queue ?? snap.defaultQueue;
    ticket.expiresAt = now + snap.expiryHours * 3600_000;
    let day: string;
    try {
      day = businessDay(now, snap.timezone);
    } catch {
      return null; // an invalid zone: the transactional path fails as it always has
    }
    ticket.displayNumber = DISPLAY_NUMBER_MARK;
    const body = eventEnvelope(ctx, eventId, EVENT_TYPE, eventAt, { object: presentTicket(ticket, config.publicUrl) });
    ticket.displayNumber = '';
    const mark = body.indexOf(DISPLAY_NUMBER_MARK);
    const room = fanOut ? (snap.room[ctx.mode] ?? DEFAULT_ROOM) : 0;
    const deliveryIds: string[] = [];
    const jobIds: string[] = [];
    for (let i = 0; i < room; i++) {
      deliveryIds.push(newId('webhookDelivery', eventAt));
      jobIds.push(newId('job', eventAt));
    }
    const jobPayloads = deliveryIds.map((id) => jobPayloadJson({ delivery_id: id } satisfies DeliveryJobPayload)!);
    const r = await batches(db).run(
      {
        ticket: unnumberedValues(ticket),
        queueGiven: input.queue !== undefined,
        timezone: snap.timezone,
        settings: snap.settings,
        day,
        event: {
          id: eventId,
          createdAt: eventAt,
          bodyBefore: body.slice(0, mark),
          bodyAfter: body.slice(mark + DISPLAY_NUMBER_MARK.length),
        },
        webhooks: fanOut
          ? {
              deliveryIds,
              jobIds,
              jobPayloads,
              jobKeyPrefix: deliveryJobKey(eventId, ''),
              lease,
            }
          : null,
      },
      `${ctx.branchId}\u0000${ctx.mode}\u0000${ticket.queue}`,
    );
    if (r === undefined) {
      snapshots(db).delete(ctx.branchId);
      return null;
    }
    if (r.number !== null) {
      ticket.number = r.number;
      ticket.displayNumber = `${ticket.queue}-${r.number}`;
      afterCommit(ctx, ticket, r.deliveries, lease === null ? [] : r.jobs, jobIds, jobPayloads);
      return ticket;
    }
    if (!r.fresh) {
      snap = remember(db, ctx.branchId, r.branch!, snap.room);
    } else if (r.endpoints > room && r.endpoints <= MAX_ROOM) {
      snap.room[ctx.mode] = r.endpoints;
    } else {
      return null; // unknown queue, a held number or too many endpoints
    }
  }
  return null;
}

/** What the transaction's after-commit hooks do on the other path, in the same order. */
function afterCommit(
  ctx: Ctx,
  ticket: Ticket,
  deliveries: number,
  leased: Array<{ id: string; key: string }>,
  jobIds: string[],
  jobPayloads: string[],
): void {
  const hooks: Array<() => void> = [];
  if (deliveries > 0) {
    const adopted: ClaimedJob[] = leased.map((j) => ({
      id: j.id,
      kind: WEBHOOK_JOB_KIND,
      key: j.key,
      payload: jobPayloads[jobIds.indexOf(j.id)]!,
      attempts: 1,
    }));
    const handOff = handOffFor(ctx.services, adopted);
    if (handOff !== null) hooks.push(handOff);
  }
  publishTicket({ ...ctx, tx: committed(hooks) } satisfies TxCtx, ticket, EVENT_TYPE);
  runAfterCommitHooks(hooks);
}

/** The Tx of a statement that has committed already: it only takes after-commit work. */
function committed(hooks: Array<() => void>): Tx {
  const done = (): never => {
    throw new Error('the create statement has committed; nothing more runs in it');
  };
  return {
    dialect: 'postgres',
    forUpdate: 'FOR UPDATE',
    query: done,
    run: done,
    later: done,
    savepoint: done,
    afterCommit: (fn) => hooks.push(fn),
  };
}
