// How a staff session's cookie is read (docs/decisions/0008-staff-page.md): the session behind a
// token, and the rule that says whether it still holds (not signed out, its user not removed,
// within its absolute and idle lifetimes, and the password unchanged since sign-in). The
// session plugin authenticates with these, and /v1/stream re-checks an open stream with them.
import type { Services } from '../core/ctx.ts';
import { hashSessionToken, passwordStamp, SESSION_IDLE_MS } from '../domain/session-token.ts';
import { findSessionByTokenHash, touchSession, type SessionView } from '../store/sessions.ts';

/** last_seen_at is written at most this often per session: idle expiry is precise to a minute, reads stay reads. */
const TOUCH_EVERY_MS = 60_000;

export function isLive(s: SessionView, now: number): boolean {
  return (
    s.revokedAt === null &&
    s.user.removedAt === null &&
    now < s.expiresAt &&
    now - s.lastSeenAt < SESSION_IDLE_MS &&
    s.passwordStamp === passwordStamp(s.user.passwordHash)
  );
}

/** The session behind a cookie's token, with its user and account, whether it still holds or not. */
export const findSessionByToken = (services: Services, token: string): Promise<SessionView | undefined> =>
  findSessionByTokenHash(services.db, hashSessionToken(token));

/** The session behind a cookie's token while it holds (isLive at `now`); undefined otherwise. */
export async function findLiveSession(services: Services, token: string, now: number): Promise<SessionView | undefined> {
  const view = await findSessionByToken(services, token);
  return view !== undefined && isLive(view, now) ? view : undefined;
}

/** A request on the session keeps it from idling out; recorded at most once a minute. */
export async function keepSessionAlive(services: Services, view: SessionView, now: number): Promise<void> {
  if (now - view.lastSeenAt >= TOUCH_EVERY_MS) await services.db.write((tx) => touchSession(tx, view.id, now));
}
