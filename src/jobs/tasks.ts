// Built-in job kinds: finishing rings the in-line attempt did not, and periodic housekeeping.
import type { Ctx, Services } from '../actions/ctx.ts';
import type { Task } from './runner.ts';
import type { Mode } from '../store/tenancy.ts';
import { attemptRing } from '../actions/perform-ring.ts';
import { getBranch, getAccount } from '../store/tenancy.ts';

export function systemCtx(services: Services, accountId: string, plan: Ctx['plan'], branchId: string, mode: Mode, name: string): Ctx {
  return { actor: { kind: 'system', name }, accountId, plan, branchId, mode, requestId: null, idempotencyKey: null, services };
}

export async function ctxForBranch(services: Services, branchId: string, mode: Mode, name: string): Promise<Ctx | null> {
  const branch = await getBranch(services.db, branchId);
  if (branch === undefined) return null;
  const account = (await getAccount(services.db, branch.accountId))!;
  return systemCtx(services, account.id, account.plan, branchId, mode, name);
}

const ringTask: Task = async (services, payload) => {
  const ctx = await ctxForBranch(services, String(payload.branch_id), payload.mode as Mode, 'ring-job');
  if (ctx === null) return;
  // The job has no caller waiting, so it gives the channels the whole job lease, not the
  // in-line deadline.
  const finish = await attemptRing(ctx, String(payload.ring_id), 20_000);
  await services.db.write((tx) => finish(tx));
};

export function builtinTasks(): Map<string, Task> {
  return new Map<string, Task>([['ring', ringTask]]);
}
