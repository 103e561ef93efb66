// The one OAuth flow every connector connects through (the code flow: the application's secret
// stays on this server, decision 0073), driven by the connector's declared settings (port.ts).
// The owner's authorize gets the POS's authorize URL with a fresh `state`, kept only as a hash
// beside a hash of the owner's session, for ten minutes (store/connector-oauth-states.ts); the POS
// sends the browser back to the callback with a code and that state, and the code is exchanged
// only when the state is known, this connector's, unexpired, unused, and the browser carries the
// same live staff session of an owner of that branch. So a code cannot be planted from another
// browser (login CSRF) nor replayed.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Action, Ctx, Services } from '../core/ctx.ts';
import { AppError } from '../domain/errors.ts';
import { randomToken } from '../domain/ids.ts';
import { hashSessionToken } from '../domain/session-token.ts';
import { requireRole } from '../actions/roles.ts';
import { findLiveSession } from '../actions/session-lookup.ts';
import { saveOAuthState, takeOAuthState } from '../store/connector-oauth-states.ts';
import { callbackPath, type OAuthSettings } from './port.ts';

const STATE_TTL_MS = 10 * 60_000;

const sameHash = (a: string, b: string): boolean => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

const hashState = (state: string): string => createHash('sha256').update(state).digest('hex');

/** A connection is the owner's to manage, in the staff page: API keys and other roles are refused. */
export function requireConnectorOwner(ctx: Ctx, label: string): void {
  if (ctx.actor.kind === 'api_key')
    throw new AppError('forbidden', `API keys cannot manage the ${label} connection; an owner does that in the staff page.`);
  requireRole(ctx, 'owner');
}

export const redirectUri = (services: Services, connector: string): string => `${services.config.publicUrl}${callbackPath(connector)}`;

/** The verb that starts a connection (its transaction): the POS's authorize URL, its state bound to this session. */
export const authorizeVerb =
  (oauth: OAuthSettings, label: string): Action<{ sessionToken: string | null }, { authorize_url: string }> =>
  async ({ ctx, input }) => {
    requireConnectorOwner(ctx, label);
    const base = oauth.authorizeUrl(ctx.services.config);
    if (base === null) throw new AppError('conflict', `This readybell has no ${label} application configured: ask its operator.`);
    if (input.sessionToken === null) throw new AppError('forbidden', `Connecting ${label} needs a staff session.`);
    const state = randomToken(32);
    const now = ctx.services.clock.now();
    await saveOAuthState(ctx.tx, {
      connector: oauth.connector,
      branchId: ctx.branchId,
      stateHash: hashState(state),
      sessionHash: hashSessionToken(input.sessionToken),
      expiresAt: now + STATE_TTL_MS,
      now,
    });
    const u = new URL(base);
    u.searchParams.set('client_id', oauth.clientId(ctx.services.config));
    u.searchParams.set('scope', oauth.scopes.join(oauth.scopeSeparator));
    for (const [k, v] of Object.entries(oauth.params ?? {})) u.searchParams.set(k, v);
    u.searchParams.set('state', state);
    u.searchParams.set('redirect_uri', redirectUri(ctx.services, oauth.connector));
    return { authorize_url: u.toString() };
  };

export type CallbackInput = { code?: string; state?: string; error?: string; sessionToken: string | null };

/**
 * The callback: the query string the connector's screen gets back, `<name>=connected` or
 * `<name>_error=access_denied|state_mismatch|token_exchange_failed|authorization_failed|not_configured`.
 */
export async function finishAuthorize(services: Services, oauth: OAuthSettings, input: CallbackInput): Promise<string> {
  const name = oauth.connector;
  const failed = (code: string): string => `${name}_error=${code}`;
  if (oauth.authorizeUrl(services.config) === null) return failed('not_configured');
  const { db, clock, log } = services;
  const now = clock.now();
  // The state is spent whatever follows, a declined authorization's too.
  const taken = input.state ? await db.write((tx) => takeOAuthState(tx, name, hashState(input.state!), now)) : null;
  if (taken === null) return failed('state_mismatch');
  const session = input.sessionToken === null ? undefined : await findLiveSession(services, input.sessionToken, now);
  const bound =
    input.sessionToken !== null &&
    session !== undefined &&
    session.branchId === taken.branchId &&
    session.user.role === 'owner' &&
    sameHash(hashSessionToken(input.sessionToken), taken.sessionHash);
  if (!bound) return failed('state_mismatch');
  if (input.error !== undefined) return failed(input.error === 'access_denied' ? 'access_denied' : 'authorization_failed');
  if (!input.code) return failed('authorization_failed');
  try {
    const account = await oauth.connect(services, taken.branchId, input.code, redirectUri(services, name));
    log.info({ branch: taken.branchId, connector: name, account }, 'connector connected');
    return `${name}=connected`;
  } catch (err) {
    log.warn({ branch: taken.branchId, connector: name, err: (err as Error).message }, 'connector code exchange failed');
    return failed('token_exchange_failed');
  }
}
