// A create on the embedded store: one write of the store's group commit (sqlite-db.ts), so it
// shares a transaction and a WAL flush with the writes that arrive with it, in a savepoint of its
// own. Here statements cost no round trip, so the create simply runs them in order.
import type { Db } from '../../core/db.ts';
import { createKeyRecord, type CreateOutcome, type CreateRequest, type CreateWrites } from '../ticket-create.ts';
import { businessDay } from '../../domain/business-day.ts';
import { getBranchAndQueue } from '../tenancy.ts';
import { takeNumber } from '../tickets.ts';
import { listFanOutTargets } from '../webhook-endpoints.ts';
import { recordKey } from '../idempotency.ts';
import { insertRow } from '../rows.ts';

/** Thrown inside the write to undo the create when its key turns out to be taken. */
const KEY_TAKEN = new Error('idempotency key taken');

export async function createInTransaction(db: Db, req: CreateRequest): Promise<CreateOutcome> {
  try {
    return await db.write(async (tx): Promise<CreateOutcome> => {
      const found = await getBranchAndQueue(tx, req.branchId, req.queue);
      if (found === undefined) throw new Error(`branch ${req.branchId} does not exist`);
      const { branch, queue } = found;
      if (!found.queueExists) return { kind: 'unknown-queue', queue };
      const number = await takeNumber(tx, req.branchId, req.mode, queue, businessDay(req.at, branch.timezone));
      const out: CreateWrites = {
        subscribers: await listFanOutTargets(tx, req.branchId, req.mode),
        insert: (row) => insertRow(tx, row),
        afterCommit: (fn) => tx.afterCommit(fn),
      };
      const answer = await req.build({ queue, number, expiryHours: branch.settings.expiry_hours, timeZone: branch.timezone }, out);
      // The key last, with the answer: a key already taken (a replay, nearly always) costs the
      // work above, undone by the savepoint, instead of a read before every keyed create.
      const record = createKeyRecord(req, answer);
      if (record !== null && !(await recordKey(tx, record))) throw KEY_TAKEN;
      return { kind: 'done', answer };
    });
  } catch (err) {
    if (err === KEY_TAKEN) return { kind: 'key-taken' };
    throw err;
  }
}
