// Validation of a browser's PushSubscription (the JSON of PushSubscription.toJSON()). The endpoint
// is a URL the service will POST to later, so it is checked like any outbound target: https only
// and never a private address (SSRF), unless the operator allows insecure endpoints for a local
// push service. The keys must be what RFC 8291 needs: an uncompressed P-256 point and 16 bytes.
import { isIP } from 'node:net';
import { createECDH } from 'node:crypto';
import { AppError, type FieldError } from './errors.ts';
import { isAddressAllowed } from './address-policy.ts';

export type PushSubscriptionInput = { endpoint: string; p256dh: string; auth: string };

export const MAX_ENDPOINT_LENGTH = 2048;
const B64URL = /^[A-Za-z0-9_-]+={0,2}$/;

function decodeKey(value: unknown): Buffer | null {
  if (typeof value !== 'string' || value.length > 200 || !B64URL.test(value)) return null;
  return Buffer.from(value.replace(/=+$/, ''), 'base64url');
}

function isPointOnCurve(point: Buffer): boolean {
  try {
    // computeSecret rejects a public key that is not on the P-256 curve.
    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    ecdh.computeSecret(point);
    return true;
  } catch {
    return false;
  }
}

function hostIsLocalName(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return h === 'localhost' || h.endsWith('.localhost') || h.endsWith('.local') || h.endsWith('.internal') || !h.includes('.');
}

/** Endpoint rules without DNS; the push channel applies them again at each send, and checks the addresses it connects to. */
export function endpointProblem(raw: string, allowInsecure: boolean): string | null {
  if (raw.length > MAX_ENDPOINT_LENGTH) return `endpoint must be at most ${MAX_ENDPOINT_LENGTH} characters.`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "endpoint must be an absolute https URL given by the browser's push service.";
  }
  if (url.protocol !== 'https:' && !(allowInsecure && url.protocol === 'http:')) return 'endpoint must use https.';
  if (url.username !== '' || url.password !== '') return 'endpoint must not contain a user name or password.';
  if (allowInsecure) return null;
  // Push services take pushes on the HTTPS port; any other (fcm.googleapis.com:22) is a probe.
  if (url.port !== '') return `endpoint must use the push services' HTTPS port (443), not ${url.port}.`;
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (isIP(host) !== 0) {
    const verdict = isAddressAllowed(host, { allowPrivate: false });
    if (!verdict.allowed) return `endpoint must be a public push service: ${verdict.reason}.`;
  } else if (hostIsLocalName(host)) {
    return `endpoint must be a public push service, not ${host}.`;
  }
  return null;
}

/** Parses the request body; throws one 422 listing every problem found. */
export function parsePushSubscription(body: unknown, allowInsecure: boolean): PushSubscriptionInput {
  const errors: FieldError[] = [];
  const b = (body !== null && typeof body === 'object' && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    errors.push({ pointer: '', detail: "The body must be the browser's PushSubscription as JSON." });
  const endpoint = b.endpoint;
  if (typeof endpoint !== 'string') errors.push({ pointer: '/endpoint', detail: 'endpoint is required (a string).' });
  else {
    const problem = endpointProblem(endpoint, allowInsecure);
    if (problem !== null) errors.push({ pointer: '/endpoint', detail: problem });
  }
  const keys = (b.keys !== null && typeof b.keys === 'object' ? b.keys : {}) as Record<string, unknown>;
  if (b.keys === null || typeof b.keys !== 'object') errors.push({ pointer: '/keys', detail: 'keys is required: { p256dh, auth }.' });
  const p256dh = decodeKey(keys.p256dh);
  if (p256dh === null || p256dh.length !== 65 || p256dh[0] !== 4 || !isPointOnCurve(p256dh)) {
    errors.push({ pointer: '/keys/p256dh', detail: 'p256dh must be base64url of an uncompressed P-256 public key (65 bytes).' });
  }
  const auth = decodeKey(keys.auth);
  if (auth === null || auth.length !== 16) errors.push({ pointer: '/keys/auth', detail: 'auth must be base64url of 16 bytes.' });
  const allowed = new Set(['endpoint', 'expirationTime', 'keys']);
  for (const k of Object.keys(b)) if (!allowed.has(k)) errors.push({ pointer: `/${k}`, detail: `Unknown field "${k}".` });
  if (errors.length > 0) {
    throw new AppError('validation-failed', errors.map((e) => e.detail).join(' '), { errors });
  }
  return { endpoint: endpoint as string, p256dh: p256dh!.toString('base64url'), auth: auth!.toString('base64url') };
}
