// The one function a create commits through; how it commits is the store's business
// (src/store/ticket-create.ts has the contract both ways keep).
import type { Db } from '../core/db.ts';
import type { CreateOutcome, CreateRequest } from './ticket-create.ts';
import { PostgresDb } from './postgres/postgres-db.ts';
import { createInStatements } from './postgres/create-batched.ts';
import { createInTransaction } from './sqlite/create-transaction.ts';

export function commitCreate(db: Db, req: CreateRequest): Promise<CreateOutcome> {
  return db instanceof PostgresDb ? createInStatements(db, req) : createInTransaction(db, req);
}
