// An OAuth access token for the Wallet REST API, from the service account's key: a JWT signed
// with the key (jose, RS256) exchanged at the key's token_uri (RFC 7523, as Google documents for
// service accounts). A token lives an hour; it is reused until a minute before it ends, and
// callers asking while one is being fetched share that fetch.
import { createPrivateKey, type KeyObject } from 'node:crypto';
import type { Clock } from '../../../core/clock.ts';
import type { GoogleWalletConfig } from '../../../core/config.ts';

export const WALLET_SCOPE = 'https://www.googleapis.com/auth/wallet_object.issuer';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const LIFETIME_S = 3600;
/** A token this close to its end is not used: a request that starts with it must still find it valid. */
const MARGIN_MS = 60_000;

export type AccessTokens = { get(): Promise<string> };

export function serviceAccountKey(config: GoogleWalletConfig): KeyObject {
  return createPrivateKey(config.serviceAccount.privateKey);
}

export function accessTokens(config: GoogleWalletConfig, key: KeyObject, clock: Clock, timeoutMs: number): AccessTokens {
  let cached: { token: string; until: number } | null = null;
  let fetching: Promise<string> | null = null;

  async function fetchToken(): Promise<string> {
    const { clientEmail, tokenUri } = config.serviceAccount;
    const now = Math.floor(clock.now() / 1000);
    // jose is loaded when Google Wallet is first used, not at every start.
    const { SignJWT } = await import('jose');
    const assertion = await new SignJWT({ scope: WALLET_SCOPE })
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT' })
      .setIssuer(clientEmail)
      .setAudience(tokenUri)
      .setIssuedAt(now)
      .setExpirationTime(now + LIFETIME_S)
      .sign(key);
    const res = await fetch(tokenUri, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: JWT_BEARER, assertion }).toString(),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const body = (await res.json().catch(() => ({}))) as { access_token?: unknown; expires_in?: unknown };
    if (!res.ok || typeof body.access_token !== 'string') throw new Error(`Google token endpoint answered ${res.status}`);
    const seconds = typeof body.expires_in === 'number' ? body.expires_in : LIFETIME_S;
    cached = { token: body.access_token, until: clock.now() + seconds * 1000 - MARGIN_MS };
    return body.access_token;
  }

  return {
    get() {
      if (cached !== null && clock.now() < cached.until) return Promise.resolve(cached.token);
      fetching ??= fetchToken().finally(() => {
        fetching = null;
      });
      return fetching;
    },
  };
}
