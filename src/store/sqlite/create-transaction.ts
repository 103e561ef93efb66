// A create on the embedded store (SqliteDb.commitCreate): one write of the store's group commit
// (sqlite-db.ts), so it shares a transaction and a WAL flush with the writes that arrive with it,
// in a savepoint of its own. Here statements cost no round trip, so the create simply runs them in
// order, and its key's record is written as every other write's is (writeWithKey).
import type { Db } from '../../core/db.ts';
import type { CreateOutcome, CreateRequest, CreateWrites } from '../../core/ticket-create.ts';
import { businessDay } from '../../domain/business-day.ts';
import { getBranchAndQueue } from '../tenancy.ts';
import { takeNumber } from '../tickets.ts';
import { listFanOutTargets } from '../webhook-endpoints.ts';
import { keyRecord, writeWithKey } from '../idempotency.ts';
import { insertRow } from '../rows.ts';

export function createInTransaction(db: Db, req: CreateRequest): Promise<CreateOutcome> {
  return writeWithKey<CreateOutcome>(db, async (tx) => {
    const found = await getBranchAndQueue(tx, req.branchId, req.queue);
    if (found === undefined) throw new Error(`branch ${req.branchId} does not exist`);
    const { branch, queue } = found;
    if (!found.queueExists) return { result: { kind: 'unknown-queue', queue }, record: null };
    const number = await takeNumber(tx, req.branchId, req.mode, queue, businessDay(req.at, branch.timezone));
    const out: CreateWrites = {
      subscribers: await listFanOutTargets(tx, req.branchId, req.mode),
      insert: (row) => insertRow(tx, row),
    };
    const answer = await req.build({ queue, number, expiryHours: branch.settings.expiry_hours, timeZone: branch.timezone }, out);
    return { result: { kind: 'done', answer }, record: keyRecord(req.key, req, { body: answer }) };
  });
}
