// API key management for owners (staff page). Keys belong to the session's branch; the full key
// exists only in the answer to its creation (the store keeps its SHA-256 and last four characters).
import { readerOf, type Action, type Read } from '../core/ctx.ts';
import { AppError, notFound } from '../domain/errors.ts';
import { createApiKey } from './provision.ts';
import { getApiKey, listApiKeys, revokeApiKey, type ApiKeyRecord } from '../store/credentials.ts';
import type { Mode } from '../core/tenancy.ts';
import { requireStaffRole } from './staff-only.ts';
import { isEmailVerified } from '../store/email-links.ts';

export const listKeys: Read<void, ApiKeyRecord[]> = async ({ ctx }) => {
  requireStaffRole(ctx, 'owner');
  return listApiKeys(readerOf(ctx), ctx.branchId);
};

export const createKey: Action<{ mode: Mode; name?: string }, { record: ApiKeyRecord; secret: string }> = async ({ ctx, input }) => {
  requireStaffRole(ctx, 'owner');
  if (ctx.plan === 'free')
    throw new AppError('plan-required', 'The free plan does not include API access, so it has no API keys; the pro and business plans do.');
  // A shop that signed itself up proves its owner's address before it can act on live data (decision 0081).
  if (input.mode === 'live' && ctx.actor.kind === 'user' && !(await isEmailVerified(ctx.tx, ctx.actor.userId)))
    throw new AppError(
      'forbidden',
      'Live keys wait until your email address is verified: follow the link in the email you were sent, or ask for a new one.',
    );
  const created = await createApiKey(
    ctx.tx,
    { branchId: ctx.branchId, mode: input.mode, name: input.name?.trim() || null },
    ctx.services.clock.now(),
  );
  return { record: (await getApiKey(ctx.tx, created.id))!, secret: created.key };
};

/** Revoking takes effect on the next request: auth reads the key row on every request. */
export const revokeKey: Action<{ id: string }, ApiKeyRecord> = async ({ ctx, input }) => {
  requireStaffRole(ctx, 'owner');
  const key = await getApiKey(ctx.tx, input.id);
  if (key === undefined || key.branchId !== ctx.branchId) throw notFound('API key');
  await revokeApiKey(ctx.tx, key.id, ctx.services.clock.now());
  return (await getApiKey(ctx.tx, key.id))!;
};
