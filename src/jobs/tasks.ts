// Built-in job kinds: finishing rings the in-line attempt did not, and periodic housekeeping.
import type { Ctx, Services } from '../actions/ctx.ts';
import type { Task } from './runner.ts';
import type { Mode } from '../store/tenancy.ts';
import { attemptRing } from '../actions/perform-ring.ts';
import { getBranch, getAccount } from '../store/tenancy.ts';
import { getRing } from '../store/tickets.ts';
import { autoRingTasks, JOB_RING_DEADLINE_MS } from './auto-ring-tasks.ts';

export function systemCtx(services: Services, accountId: string, plan: Ctx['plan'], branchId: string, mode: Mode, name: string): Ctx {
  return { actor: { kind: 'system', name }, accountId, plan, branchId, mode, requestId: null, idempotencyKey: null, services };
}

export async function ctxForBranch(services: Services, branchId: string, mode: Mode, name: string): Promise<Ctx | null> {
  const branch = await getBranch(services.db, branchId);
  if (branch === undefined) return null;
  const account = (await getAccount(services.db, branch.accountId))!;
  return systemCtx(services, account.id, account.plan, branchId, mode, name);
}

/**
 * The ring job's last try records what is known, so a channel that never answers cannot keep a
 * ring open; a send still in flight or claimed is waited for even then (attemptRing's `final`).
 */
const RING_JOB_MAX_ATTEMPTS = 5;

const ringTask: Task = async (services, payload, job) => {
  const ctx = await ctxForBranch(services, String(payload.branch_id), payload.mode as Mode, 'ring-job');
  if (ctx === null) return;
  // The job has no caller waiting, so it gives the channels longer than the in-line deadline.
  const finish = await attemptRing(ctx, String(payload.ring_id), JOB_RING_DEADLINE_MS, { final: job.attempts >= RING_JOB_MAX_ATTEMPTS });
  await services.db.write((tx) => finish(tx));
  // A channel still sending (hung, or another node's attempt in flight) leaves the ring open:
  // look again shortly. A send's claim left by a dead process is resolved by the first try after
  // it is stale (send-once.ts), so the retries, not the count of tries, outlast it.
  const ring = await getRing(services.db, String(payload.ring_id));
  if (ring !== undefined && ring.completedAt === null) return { retryAt: services.clock.now() + 5_000 };
};

export function builtinTasks(): Map<string, Task> {
  return new Map<string, Task>([['ring', ringTask], ...autoRingTasks()]);
}
