// Accounts, branches and queues: the tenancy tree every request is resolved against.
import type { Queryable, Tx } from '../core/db.ts';
import type { Plan } from '../core/tenancy.ts';
import { credentialsChanged } from './credential-changes.ts';
import { fromJson, one, toJson } from './db.ts';
import { withDefaults } from '../domain/branch-settings.ts';
import type { BranchSettings } from '../core/branch-settings.ts';

export type Account = { id: string; name: string; plan: Plan; createdAt: number };
export type Branch = {
  id: string;
  accountId: string;
  name: string;
  timezone: string;
  defaultQueue: string;
  settings: BranchSettings;
  createdAt: number;
  updatedAt: number;
};
export type Queue = { branchId: string; name: string; createdAt: number };

type BranchRow = {
  id: string;
  account_id: string;
  name: string;
  timezone: string;
  default_queue: string;
  settings: string;
  created_at: number;
  updated_at: number;
};

const toBranch = (r: BranchRow): Branch => ({
  id: r.id,
  accountId: r.account_id,
  name: r.name,
  timezone: r.timezone,
  defaultQueue: r.default_queue,
  settings: withDefaults(fromJson(r.settings, {})),
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
});

export async function insertAccount(tx: Tx, a: Account): Promise<void> {
  await tx.run('INSERT INTO accounts (id, name, plan, created_at) VALUES ($1, $2, $3, $4)', [a.id, a.name, a.plan, a.createdAt]);
}

export async function getAccount(q: Queryable, id: string): Promise<Account | undefined> {
  const r = await one<{ id: string; name: string; plan: Plan; created_at: number }>(
    q,
    'SELECT id, name, plan, created_at FROM accounts WHERE id = $1',
    [id],
  );
  return r && { id: r.id, name: r.name, plan: r.plan, createdAt: Number(r.created_at) };
}

export async function listAccounts(q: Queryable): Promise<Account[]> {
  const rows = await q.query<{ id: string; name: string; plan: Plan; created_at: number }>(
    'SELECT id, name, plan, created_at FROM accounts ORDER BY id',
  );
  return rows.map((r) => ({ id: r.id, name: r.name, plan: r.plan, createdAt: Number(r.created_at) }));
}

/** False only on a store nobody has set up yet (serve --demo then provisions the demo account). */
export async function hasAnyAccount(q: Queryable): Promise<boolean> {
  return (await q.query('SELECT id FROM accounts LIMIT 1')).length > 0;
}

export async function setAccountPlan(tx: Tx, id: string, plan: Plan): Promise<boolean> {
  await credentialsChanged(tx);
  return (await tx.run('UPDATE accounts SET plan = $2 WHERE id = $1', [id, plan])) === 1;
}

export async function insertBranch(tx: Tx, b: Branch): Promise<void> {
  await tx.run(
    `INSERT INTO branches (id, account_id, name, timezone, default_queue, settings, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [b.id, b.accountId, b.name, b.timezone, b.defaultQueue, toJson(b.settings), b.createdAt, b.updatedAt],
  );
}

const BRANCH_COLUMNS = 'id, account_id, name, timezone, default_queue, settings, created_at, updated_at';

export async function getBranch(q: Queryable, id: string): Promise<Branch | undefined> {
  const r = await one<BranchRow>(q, `SELECT ${BRANCH_COLUMNS} FROM branches WHERE id = $1`, [id]);
  return r && toBranch(r);
}

/**
 * The branch and whether `queue` (its default queue when null) exists, in one query: a create
 * needs both, and on PostgreSQL each query is a round trip.
 */
export async function getBranchAndQueue(
  q: Queryable,
  id: string,
  queue: string | null,
): Promise<{ branch: Branch; queue: string; queueExists: boolean } | undefined> {
  const r = await one<BranchRow & { queue_created_at: number | null }>(
    q,
    `SELECT ${BRANCH_COLUMNS},
       (SELECT q.created_at FROM queues q WHERE q.branch_id = b.id AND q.name = COALESCE($2, b.default_queue)) AS queue_created_at
     FROM branches b WHERE b.id = $1`,
    [id, queue],
  );
  if (r === undefined) return undefined;
  const branch = toBranch(r);
  return { branch, queue: queue ?? branch.defaultQueue, queueExists: r.queue_created_at !== null };
}

export async function getBranchForUpdate(tx: Tx, id: string): Promise<Branch | undefined> {
  const r = await one<BranchRow>(tx, `SELECT ${BRANCH_COLUMNS} FROM branches WHERE id = $1 ${tx.forUpdate}`, [id]);
  return r && toBranch(r);
}

export async function listBranches(q: Queryable, accountId: string): Promise<Branch[]> {
  const rows = await q.query<BranchRow>(`SELECT ${BRANCH_COLUMNS} FROM branches WHERE account_id = $1 ORDER BY id`, [accountId]);
  return rows.map(toBranch);
}

export async function updateBranch(tx: Tx, b: Branch): Promise<void> {
  await tx.run('UPDATE branches SET name = $2, timezone = $3, default_queue = $4, settings = $5, updated_at = $6 WHERE id = $1', [
    b.id,
    b.name,
    b.timezone,
    b.defaultQueue,
    toJson(b.settings),
    b.updatedAt,
  ]);
}

export async function countBranches(q: Queryable, accountId: string): Promise<number> {
  const r = await one<{ n: number }>(q, 'SELECT COUNT(*) AS n FROM branches WHERE account_id = $1', [accountId]);
  return Number(r?.n ?? 0);
}

export async function listQueues(q: Queryable, branchId: string): Promise<Queue[]> {
  const rows = await q.query<{ branch_id: string; name: string; created_at: number }>(
    'SELECT branch_id, name, created_at FROM queues WHERE branch_id = $1 ORDER BY name',
    [branchId],
  );
  return rows.map((r) => ({ branchId: r.branch_id, name: r.name, createdAt: Number(r.created_at) }));
}

export async function getQueue(q: Queryable, branchId: string, name: string): Promise<Queue | undefined> {
  const r = await one<{ created_at: number }>(q, 'SELECT created_at FROM queues WHERE branch_id = $1 AND name = $2', [branchId, name]);
  return r && { branchId, name, createdAt: Number(r.created_at) };
}

/** Returns false when the queue already exists. */
export async function insertQueue(tx: Tx, queue: Queue): Promise<boolean> {
  const n = await tx.run('INSERT INTO queues (branch_id, name, created_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [
    queue.branchId,
    queue.name,
    queue.createdAt,
  ]);
  return n === 1;
}

export async function deleteQueue(tx: Tx, branchId: string, name: string): Promise<boolean> {
  return (await tx.run('DELETE FROM queues WHERE branch_id = $1 AND name = $2', [branchId, name])) === 1;
}

export async function countOpenTicketsInQueue(q: Queryable, branchId: string, name: string): Promise<number> {
  const r = await one<{ n: number }>(q, 'SELECT COUNT(*) AS n FROM tickets WHERE branch_id = $1 AND queue = $2 AND closed_at IS NULL', [
    branchId,
    name,
  ]);
  return Number(r?.n ?? 0);
}
