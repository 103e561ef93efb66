// The staff page's second way into /v1: a session cookie (docs/decisions/0008-staff-page.md).
// Security rests on three independent layers, any one of which stops a cross-site request:
//   1. the cookie is SameSite=Lax, so browsers do not attach it to cross-site subresource or POST requests;
//   2. a request carrying the cookie is refused when Origin or Sec-Fetch-Site say it came from another site;
//   3. every unsafe method must echo the session's CSRF token in X-CSRF-Token (domain/session-token.ts:
//      an HMAC of the cookie's token, a signed double-submit bound to this one session).
import { timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../../core/ctx.ts';
import type { Config } from '../../core/config.ts';
import { AppError } from '../../domain/errors.ts';
import { findLiveSession, keepSessionAlive, type findSessionByToken } from '../../actions/session-lookup.ts';
import { refuseWhileDeleted } from '../../actions/account-deletion.ts';
import { csrfTokenFor, SESSION_TOKEN_SHAPE } from '../../domain/session-token.ts';
import type { Auth, SessionAuthenticator } from './auth.ts';
import { sessionMode } from './mode-header.ts';

const COOKIE = 'readybell_session';
// The __Host- prefix makes browsers refuse the cookie unless it is Secure, host-only and Path=/,
// so a sibling subdomain cannot plant or overwrite it.
const SECURE_COOKIE = `__Host-${COOKIE}`;

/** A session with its user and account, as the session verbs read it. */
type SessionView = NonNullable<Awaited<ReturnType<typeof findSessionByToken>>>;

export type StaffSession = { token: string; csrfToken: string; view: SessionView };
const bySession = new WeakMap<FastifyRequest, StaffSession>();

/** The session behind a request authenticated by cookie, or null for API keys. */
export function sessionOf(req: FastifyRequest): StaffSession | null {
  return bySession.get(req) ?? null;
}

function parseCookies(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (header === undefined) return out;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    if (!out.has(name)) out.set(name, part.slice(eq + 1).trim());
  }
  return out;
}

/** The session token a request's cookie carries (not yet checked against the store), or null. */
export function readToken(req: FastifyRequest): string | null {
  const cookies = parseCookies(req.headers.cookie);
  const token = cookies.get(SECURE_COOKIE) ?? cookies.get(COOKIE);
  return token !== undefined && SESSION_TOKEN_SHAPE.test(token) ? token : null;
}

export function cookieIsSecure(req: FastifyRequest, config: Config): boolean {
  return req.protocol === 'https' || config.publicUrl.startsWith('https:');
}

export function setSessionCookie(req: FastifyRequest, reply: FastifyReply, config: Config, token: string, maxAgeMs: number): void {
  const secure = cookieIsSecure(req, config);
  const name = secure ? SECURE_COOKIE : COOKIE;
  const maxAge = Math.max(0, Math.floor(maxAgeMs / 1000));
  reply.header('Set-Cookie', `${name}=${token}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAge}${secure ? '; Secure' : ''}`);
}

export function clearSessionCookie(req: FastifyRequest, reply: FastifyReply, config: Config): void {
  setSessionCookie(req, reply, config, '', 0);
}

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Refuses a request that a browser says came from another site. Origin is compared with both
 * the public URL and the address the request was sent to (a counter PC may use either); a
 * foreign page cannot choose the Origin the victim's browser sends.
 */
export function assertSameSite(req: FastifyRequest, config: Config): void {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined) {
    const ok = site === 'same-origin' || (site === 'none' && !UNSAFE.has(req.method));
    if (!ok) throw crossSite();
  }
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== 'null') {
    const own = new Set([new URL(config.publicUrl).origin, `${req.protocol}://${req.host}`]);
    if (!own.has(origin)) throw crossSite();
  } else if (origin === 'null' && UNSAFE.has(req.method)) {
    throw crossSite();
  }
}

const crossSite = (): AppError => new AppError('forbidden', 'Requests from another site cannot use a staff session.');

function csrfMatches(req: FastifyRequest, token: string): boolean {
  const sent = req.headers['x-csrf-token'];
  if (typeof sent !== 'string') return false;
  const expected = Buffer.from(csrfTokenFor(token));
  const actual = Buffer.from(sent);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

export function createSessionAuthenticator(services: Services): SessionAuthenticator {
  const { clock, config } = services;
  return async (req: FastifyRequest): Promise<Auth | null> => {
    const token = readToken(req);
    if (token === null) return null;
    assertSameSite(req, config);
    const now = clock.now();
    const view = await findLiveSession(services, token, now);
    const mode = sessionMode(req);
    if (view === undefined) {
      throw new AppError('unauthenticated', 'Your staff session has expired or was signed out; sign in again.');
    }
    if (UNSAFE.has(req.method) && !csrfMatches(req, token)) {
      throw new AppError(
        'forbidden',
        'A staff session must send its CSRF token in the X-CSRF-Token header on every POST, PATCH and DELETE.',
      );
    }
    refuseWhileDeleted(view.account.deletionRequestedAt, `${req.method} ${req.routeOptions.url ?? req.url}`);
    await keepSessionAlive(services, view, now);
    bySession.set(req, { token, csrfToken: csrfTokenFor(token), view });
    return {
      actor: { kind: 'user', userId: view.userId, role: view.user.role },
      accountId: view.accountId,
      plan: view.account.plan,
      branchId: view.branchId,
      mode,
      // Each signed-in device has its own buckets (PRODUCT.md §8), apart from the branch's API keys.
      bucketKey: `session:${view.id}`,
    };
  };
}
