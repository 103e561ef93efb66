// Operations that PRODUCT.md §3 keeps out of integrators' hands: API keys and staff users are
// managed by an owner signed in to the staff page (or an operator with the CLI), never with a key.
import type { Ctx } from '../core/ctx.ts';
import { AppError } from '../domain/errors.ts';
import type { Role } from '../core/tenancy.ts';
import { requireRole } from './roles.ts';

export function requireStaffRole(ctx: Ctx, needed: Role): void {
  if (ctx.actor.kind === 'api_key') {
    throw new AppError('forbidden', 'API keys cannot manage API keys or staff users; an owner does that in the staff page.');
  }
  requireRole(ctx, needed);
}
