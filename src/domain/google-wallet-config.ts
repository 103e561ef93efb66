// The Google Wallet part of the configuration (docs/google-wallet.md), parsed by loadConfig from
// GOOGLE_WALLET_ISSUER_ID, the service account's JSON key (GOOGLE_WALLET_SERVICE_ACCOUNT, or the
// file GOOGLE_WALLET_SERVICE_ACCOUNT_FILE names, read by src/config.ts) and GOOGLE_WALLET_API_URL.
// A key that is not an RSA private key stops the process at start, not at the first save link.
import { createPrivateKey } from 'node:crypto';
import type { GoogleWalletConfig } from '../core/config.ts';

export const GOOGLE_WALLET_API = 'https://walletobjects.googleapis.com';
const GOOGLE_TOKEN_URI = 'https://oauth2.googleapis.com/token';

/** The key and the token endpoint travel in requests: https, or plain http on this machine (tests). */
function secureUrl(raw: string): string | null {
  try {
    const u = new URL(raw);
    const loopback = u.hostname === '127.0.0.1' || u.hostname === 'localhost' || u.hostname === '[::1]';
    if (u.protocol === 'https:' || (u.protocol === 'http:' && loopback)) return raw.replace(/\/+$/, '');
  } catch {
    // answered below
  }
  return null;
}

/**
 * `issuerId`, `keyJson` (the service account's key file as Google issues it) and `apiUrl` as the
 * environment gave them; all absent: Google Wallet is off (null).
 */
export function parseGoogleWalletConfig(
  issuerId: string | undefined,
  keyJson: string | undefined,
  apiUrl: string | undefined,
  problems: string[],
): GoogleWalletConfig | null {
  if (issuerId === undefined && keyJson === undefined) return null;
  if (issuerId === undefined || keyJson === undefined) {
    problems.push(
      'GOOGLE_WALLET_ISSUER_ID and a service account key (GOOGLE_WALLET_SERVICE_ACCOUNT_FILE or GOOGLE_WALLET_SERVICE_ACCOUNT) must be set together (or neither)',
    );
    return null;
  }
  if (!/^\d{1,30}$/.test(issuerId)) problems.push(`GOOGLE_WALLET_ISSUER_ID must be the issuer's number (got "${issuerId}")`);
  let key: { client_email?: unknown; private_key?: unknown; token_uri?: unknown };
  try {
    key = JSON.parse(keyJson) as typeof key;
  } catch {
    problems.push('the Google Wallet service account key is not JSON (download it as JSON from Google Cloud IAM)');
    return null;
  }
  const { client_email: email, private_key: privateKey, token_uri: tokenUri = GOOGLE_TOKEN_URI } = key ?? {};
  if (typeof email !== 'string' || !email.includes('@')) problems.push('the Google Wallet service account key has no client_email');
  if (typeof privateKey !== 'string') problems.push('the Google Wallet service account key has no private_key');
  else {
    try {
      if (createPrivateKey(privateKey).asymmetricKeyType !== 'rsa') throw new Error('not RSA');
    } catch {
      problems.push('the Google Wallet service account private_key is not an RSA private key in PEM form');
    }
  }
  const token = typeof tokenUri === 'string' ? secureUrl(tokenUri) : null;
  if (token === null) problems.push('the Google Wallet service account token_uri must be an https URL');
  const api = secureUrl(apiUrl ?? GOOGLE_WALLET_API);
  if (api === null) problems.push(`GOOGLE_WALLET_API_URL must be an https URL (http only on loopback) (got "${apiUrl}")`);
  if (typeof email !== 'string' || typeof privateKey !== 'string' || token === null || api === null) return null;
  return { issuerId, serviceAccount: { clientEmail: email, privateKey, tokenUri: token }, apiUrl: api };
}
