// The ctx a job acts with: the system as the actor, on the branch and mode its payload names. Beside
// the verbs, below the ring's jobs and the hourly maintenance that both act with it.
import type { Ctx, Services } from '../core/ctx.ts';
import type { Mode } from '../core/tenancy.ts';
import { getAccount, getBranch } from '../store/tenancy.ts';

export function systemCtx(services: Services, accountId: string, plan: Ctx['plan'], branchId: string, mode: Mode, name: string): Ctx {
  return { actor: { kind: 'system', name }, accountId, plan, branchId, mode, requestId: null, idempotencyKey: null, services };
}

/**
 * The ctx of a write that belongs to no branch (a text back from a number no open ticket was
 * texted at: its opt-out is the number's, in the mode). No verb that reads a branch runs in it.
 */
export function noBranchCtx(services: Services, mode: Mode, name: string): Ctx {
  return systemCtx(services, '', 'free', '', mode, name);
}

/** Null when the branch no longer exists (its jobs have nothing left to do). */
export async function ctxForBranch(services: Services, branchId: string, mode: Mode, name: string): Promise<Ctx | null> {
  const branch = await getBranch(services.db, branchId);
  if (branch === undefined) return null;
  const account = (await getAccount(services.db, branch.accountId))!;
  return systemCtx(services, account.id, account.plan, branchId, mode, name);
}
