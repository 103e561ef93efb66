// Connecting a branch to Square with Square's OAuth code flow: the owner's POST …/authorize gets
// Square's authorize URL with a fresh `state`, kept here only as a hash beside a hash of the
// owner's session, for ten minutes; Square sends the browser back to the callback with a code and
// that state, and the code is exchanged (with the application's secret, which never leaves this
// server) only when the state is known, unexpired, unused and the browser carries the same live
// staff session. So a code cannot be planted from another browser (login CSRF) nor replayed.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Action, Ctx, Services } from '../../core/ctx.ts';
import { AppError } from '../../domain/errors.ts';
import { randomToken } from '../../domain/ids.ts';
import { SQUARE_CALLBACK_PATH } from '../../domain/square-config.ts';
import { hashSessionToken } from '../../domain/session-token.ts';
import { requireRole } from '../../actions/roles.ts';
import { findLiveSession } from '../../actions/session-lookup.ts';
import { saveConnected, saveOAuthState, takeOAuthState } from '../../store/square-connections.ts';
import { sealToken, squareApi, squareConfigOf } from './connection-state.ts';
import { SquareCallError } from './square-api.ts';

const STATE_TTL_MS = 10 * 60_000;

/** The staff page's Square screen (agreed with the staff page: docs/decisions/0073). */
export const SQUARE_SCREEN = '/staff/#/settings/square';

const sameHash = (a: string, b: string): boolean => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

const hashState = (state: string): string => createHash('sha256').update(state).digest('hex');

/** The owner's own session (staff page only): API keys and other roles are refused. */
export function requireSquareOwner(ctx: Ctx): void {
  if (ctx.actor.kind === 'api_key')
    throw new AppError('forbidden', 'API keys cannot manage the Square connection; an owner does that in the staff page.');
  requireRole(ctx, 'owner');
}

export const redirectUri = (services: Services): string => `${services.config.publicUrl}${SQUARE_CALLBACK_PATH}`;

/** Starts a connection (the write's transaction): the URL of Square's authorize page, its state bound to this session. */
export const startSquareAuthorize: Action<{ sessionToken: string | null }, { authorize_url: string }> = async ({ ctx, input }) => {
  requireSquareOwner(ctx);
  const config = squareConfigOf(ctx.services);
  if (input.sessionToken === null) throw new AppError('forbidden', 'Connecting Square needs a staff session.');
  const state = randomToken(32);
  const now = ctx.services.clock.now();
  await saveOAuthState(ctx.tx, {
    branchId: ctx.branchId,
    environment: config.environment,
    stateHash: hashState(state),
    sessionHash: hashSessionToken(input.sessionToken),
    expiresAt: now + STATE_TTL_MS,
    now,
  });
  return { authorize_url: squareApi(ctx.services).authorizeUrl(state, redirectUri(ctx.services)) };
};

export type CallbackInput = { code?: string; state?: string; error?: string; sessionToken: string | null };

/** Where the browser goes back to: the Square screen, saying connected or why not. */
export async function finishSquareAuthorize(services: Services, input: CallbackInput): Promise<string> {
  const back = (outcome: string): string => `${SQUARE_SCREEN}?${outcome}`;
  if (services.config.square === null) return back('square_error=not_configured');
  const { db, clock, log } = services;
  const now = clock.now();
  // The state is spent whatever follows, a declined authorization's too.
  const taken = input.state ? await db.write((tx) => takeOAuthState(tx, hashState(input.state!), now)) : null;
  if (taken === null) return back('square_error=state_mismatch');
  const session = input.sessionToken === null ? undefined : await findLiveSession(services, input.sessionToken, now);
  const bound =
    input.sessionToken !== null &&
    session !== undefined &&
    session.branchId === taken.branchId &&
    session.user.role === 'owner' &&
    sameHash(hashSessionToken(input.sessionToken), taken.sessionHash);
  if (!bound) return back('square_error=state_mismatch');
  if (input.error !== undefined) return back(`square_error=${input.error === 'access_denied' ? 'access_denied' : 'authorization_failed'}`);
  if (!input.code) return back('square_error=authorization_failed');
  const api = squareApi(services);
  try {
    const grant = await api.exchangeCode(input.code, redirectUri(services));
    if (grant.merchantId === null) throw new SquareCallError('ObtainToken: no merchant in the answer', null, null, null);
    const merchantName = await api.merchantName(grant.accessToken, grant.merchantId).catch(() => null);
    const branchId = taken.branchId;
    await db.write((tx) =>
      saveConnected(tx, {
        branchId,
        environment: squareConfigOf(services).environment,
        merchantId: grant.merchantId!,
        merchantName,
        tokens: {
          accessToken: sealToken(services, branchId, 'access', grant.accessToken),
          refreshToken: grant.refreshToken === null ? null : sealToken(services, branchId, 'refresh', grant.refreshToken),
          expiresAt: grant.expiresAt,
        },
        now: clock.now(),
      }),
    );
    log.info({ branch: branchId, merchant: grant.merchantId }, 'Square connected');
    return back('square=connected');
  } catch (err) {
    log.warn({ branch: taken.branchId, err: (err as Error).message }, 'Square code exchange failed');
    return back('square_error=token_exchange_failed');
  }
}
