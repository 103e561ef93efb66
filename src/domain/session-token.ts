// Staff session tokens: what the cookie carries, what the store keeps, and the CSRF token derived
// from them. Pure functions; the HTTP edge and the sign-in action share them.
import { createHash, createHmac } from 'node:crypto';

export const SESSION_IDLE_MS = 12 * 3600_000;
export const SESSION_ABSOLUTE_MS = 7 * 24 * 3600_000;
/** 32 random bytes in base64url. */
export const SESSION_TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export const hashSessionToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/**
 * The CSRF token is an HMAC keyed by the session token, which only the HttpOnly cookie holds:
 * another site can neither read nor compute it, and it needs no storage of its own.
 */
export const csrfTokenFor = (token: string): string => createHmac('sha256', token).update('readybell csrf v1').digest('base64url');

/** A digest of the password hash: a password change makes every older session's stamp stale. */
export const passwordStamp = (passwordHash: string): string => createHash('sha256').update(passwordHash).digest('base64url').slice(0, 22);
