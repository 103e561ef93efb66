// Role checks shared by every action: API keys act with the rights of the branch's integration
// (manager level: tickets, queues, displays, settings); staff users with their role.
import type { Ctx } from '../core/ctx.ts';
import { AppError } from '../domain/errors.ts';
import type { Role } from '../core/tenancy.ts';

const RANK: Record<Role, number> = { staff: 1, manager: 2, owner: 3 };

export function requireRole(ctx: Ctx, needed: Role): void {
  const actor = ctx.actor;
  if (actor.kind === 'system') return;
  if (actor.kind === 'api_key') {
    if (RANK[needed] <= RANK.manager) return;
  } else if (actor.kind === 'user' && RANK[actor.role] >= RANK[needed]) {
    return;
  }
  throw new AppError('forbidden', `This operation needs the ${needed} role.`);
}

/**
 * Branch settings (and the default queue) shape live tickets too, so only live callers change them
 * (PRODUCT.md §1, decision 0052): a test key or a staff session in test mode reads them and is
 * refused here, before anything is looked up.
 */
export function requireLiveMode(ctx: Ctx): void {
  if (ctx.mode === 'live' || ctx.actor.kind === 'system') return;
  throw new AppError(
    'forbidden',
    'Branch settings shape live tickets too, so a test key (rk_test_…) or test mode can read them but not change them: use the live key (rk_live_…), or switch the staff page to Live.',
  );
}
