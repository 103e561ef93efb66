// Receiver side of readybell webhooks, published as the package `@readybell/webhooks`
// (packages/webhooks, built by scripts/build-exports.ts) and as `readybell/webhooks` here.
// Self-contained on purpose (node:crypto and node:buffer only): the package ships this file and the
// types of events/ (generated from the OpenAPI document), so it must never import anything else.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { Buffer } from 'node:buffer';
import type { components } from './events/index.ts';

export type WebhookErrorCode =
  | 'missing_header'
  | 'malformed_header'
  | 'no_signatures'
  | 'timestamp_out_of_tolerance'
  | 'signature_mismatch'
  | 'invalid_payload';

export class WebhookSignatureError extends Error {
  readonly code: WebhookErrorCode;

  constructor(code: WebhookErrorCode, message: string) {
    super(message);
    this.name = 'WebhookSignatureError';
    this.code = code;
  }
}

/**
 * A verified event, as the OpenAPI document describes it: narrow on `type` to get that type's
 * `data`. New types may be added within v1 (the body is then one of none of these): ignore the
 * types you do not know, in a `default` branch.
 */
export type WebhookEvent = components['schemas']['Event'];
/** Every event type, e.g. `ticket.ready`. */
export type WebhookEventType = WebhookEvent['type'];
/** The event of one type, e.g. `WebhookEventOf<'ticket.rung'>`. */
export type WebhookEventOf<T extends WebhookEventType> = Extract<WebhookEvent, { type: T }>;

export type VerifyOptions = { toleranceSeconds?: number; nowSeconds?: number };

const DEFAULT_TOLERANCE_SECONDS = 300;
const HMAC_SHA256_BYTES = 32;
const HEX = /^[0-9a-fA-F]*$/;

type ParsedHeader = { timestamp: number; signatures: string[] };

function parseHeader(header: string | string[] | undefined | null): ParsedHeader {
  // Frameworks hand over a repeated header as an array; its parts are one logical list.
  const raw = Array.isArray(header) ? header.join(',') : header;
  if (raw === undefined || raw === null || raw.trim() === '') {
    throw new WebhookSignatureError('missing_header', 'Service-Signature header is missing');
  }
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const item of raw.split(',')) {
    const part = item.trim();
    if (part === '') continue;
    const eq = part.indexOf('=');
    if (eq <= 0) {
      throw new WebhookSignatureError('malformed_header', 'Service-Signature items must be scheme=value pairs');
    }
    const scheme = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (scheme === 't') {
      if (timestamp !== undefined || !/^\d{1,15}$/.test(value)) {
        throw new WebhookSignatureError('malformed_header', 'Service-Signature needs exactly one integer t=');
      }
      timestamp = Number(value);
    } else if (scheme === 'v1') {
      signatures.push(value);
    }
    // Any other scheme (v0, v2, …) is skipped so the sender can add schemes without breaking us.
  }
  if (timestamp === undefined) {
    throw new WebhookSignatureError('malformed_header', 'Service-Signature has no t= timestamp');
  }
  return { timestamp, signatures };
}

function toBuffer(rawBody: string | Buffer | Uint8Array): Buffer {
  if (typeof rawBody === 'string') return Buffer.from(rawBody, 'utf8');
  if (Buffer.isBuffer(rawBody)) return rawBody;
  if (rawBody instanceof Uint8Array) return Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength);
  // Usually a framework already ran JSON.parse (re-serializing would not give the signed bytes),
  // but Express also hands over `{}` for a request with another Content-Type: either way the
  // request must end in a 400, so this is a check failure with a message that names the cause.
  throw new WebhookSignatureError(
    'invalid_payload',
    'webhook body must be the raw request body (string or Buffer), not a parsed object; see docs/webhooks-verify.md',
  );
}

function signatureMatches(candidate: string, expected: Buffer): boolean {
  // Buffer.from(…, 'hex') silently truncates at the first bad character, so validate first;
  // a wrong length or non-hex value is simply a mismatch, never a different kind of error.
  if (candidate.length !== HMAC_SHA256_BYTES * 2 || !HEX.test(candidate)) return false;
  const given = Buffer.from(candidate, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function checkOptions(secret: string, options: VerifyOptions, fn: string): { tolerance: number; now: number } {
  if (typeof secret !== 'string' || secret.length === 0) {
    // A missing secret is a receiver configuration bug, not an attack: keep it out of the 400 path.
    throw new TypeError(`${fn} needs the endpoint secret (whsec_…)`);
  }
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (!Number.isFinite(tolerance) || tolerance < 0) {
    throw new RangeError('toleranceSeconds must be a non-negative number');
  }
  return { tolerance, now: options.nowSeconds ?? Math.floor(Date.now() / 1000) };
}

function checkTimestamp(timestamp: number, now: number, tolerance: number, header: string): void {
  if (Math.abs(now - timestamp) > tolerance) {
    throw new WebhookSignatureError('timestamp_out_of_tolerance', `${header} timestamp is more than ${tolerance} s away from now`);
  }
}

function parseEvent(body: Buffer): WebhookEvent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
  } catch {
    throw new WebhookSignatureError('invalid_payload', 'webhook body is not valid UTF-8 JSON');
  }
  if (
    typeof parsed !== 'object' ||
    parsed === null ||
    Array.isArray(parsed) ||
    typeof (parsed as { id?: unknown }).id !== 'string' ||
    typeof (parsed as { type?: unknown }).type !== 'string'
  ) {
    throw new WebhookSignatureError('invalid_payload', 'webhook body is not an event object with id and type');
  }
  return parsed as WebhookEvent;
}

/**
 * Checks a readybell delivery by its `Service-Signature` header and returns the parsed event.
 * `rawBody` must be the exact bytes received, before any JSON parsing.
 * Throws WebhookSignatureError (answer 400) when any check fails.
 */
export function verifyWebhook(
  rawBody: string | Buffer | Uint8Array,
  header: string | string[] | undefined | null,
  secret: string,
  options: VerifyOptions = {},
): WebhookEvent {
  const { tolerance, now } = checkOptions(secret, options, 'verifyWebhook');
  const body = toBuffer(rawBody);
  const { timestamp, signatures } = parseHeader(header);
  if (signatures.length === 0) {
    throw new WebhookSignatureError('no_signatures', 'Service-Signature carries no v1= signature');
  }
  checkTimestamp(timestamp, now, tolerance, 'Service-Signature');

  const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${timestamp}.`, 'utf8').update(body).digest();
  let matched = false;
  // No early exit: every candidate is compared, so timing reveals nothing about which one matched.
  for (const candidate of signatures) {
    if (signatureMatches(candidate, expected)) matched = true;
  }
  if (!matched) {
    throw new WebhookSignatureError('signature_mismatch', 'no v1 signature matches this secret and body');
  }
  return parseEvent(body);
}

/** Request headers as Node (`req.headers`), a plain object or a Fetch `Headers` hands them over. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

function headerValue(headers: WebhookHeaders | undefined | null, name: string): string | undefined {
  if (typeof headers !== 'object' || headers === null) return undefined;
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (key.toLowerCase() !== name) continue;
    return Array.isArray(value) ? value.join(' ') : value;
  }
  return undefined;
}

/**
 * The Standard Webhooks key of a `whsec_` secret: the base64 decoding of what follows the prefix.
 * Lenient on purpose (url alphabet, missing padding), so secrets issued before readybell made them
 * canonical base64 keep verifying.
 */
export function standardWebhookKey(secret: string): Buffer {
  const encoded = (secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret)
    .replace(/-/g, '+')
    .replace(/_/g, '/')
    .replace(/=+$/, '');
  const key = /^[A-Za-z0-9+/]+$/.test(encoded) ? Buffer.from(encoded, 'base64') : Buffer.alloc(0);
  if (key.length === 0) throw new TypeError('a webhook secret must be whsec_ followed by base64');
  return key;
}

const BASE64_SHA256 = /^[A-Za-z0-9+/]{43}=$/;

/**
 * Checks a readybell delivery by its Standard Webhooks headers (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature`) and returns the parsed event. Same errors as verifyWebhook.
 */
export function verifyStandardWebhook(
  rawBody: string | Buffer | Uint8Array,
  headers: WebhookHeaders | undefined | null,
  secret: string,
  options: VerifyOptions = {},
): WebhookEvent {
  const { tolerance, now } = checkOptions(secret, options, 'verifyStandardWebhook');
  const key = standardWebhookKey(secret);
  const body = toBuffer(rawBody);
  const id = headerValue(headers, 'webhook-id');
  const rawTimestamp = headerValue(headers, 'webhook-timestamp');
  const signatureList = headerValue(headers, 'webhook-signature');
  for (const [name, value] of [
    ['webhook-id', id],
    ['webhook-timestamp', rawTimestamp],
    ['webhook-signature', signatureList],
  ] as const) {
    if (value === undefined || value.trim() === '') throw new WebhookSignatureError('missing_header', `${name} header is missing`);
  }
  if (!/^\d{1,15}$/.test(rawTimestamp!.trim())) {
    throw new WebhookSignatureError('malformed_header', 'webhook-timestamp must be an integer of seconds');
  }
  const timestamp = Number(rawTimestamp!.trim());
  // Space-separated `version,signature` entries; versions other than v1 (v1a, …) are skipped.
  const signatures = signatureList!
    .trim()
    .split(/\s+/)
    .filter((entry) => entry.startsWith('v1,'))
    .map((entry) => entry.slice('v1,'.length));
  if (signatures.length === 0) {
    throw new WebhookSignatureError('no_signatures', 'webhook-signature carries no v1 signature');
  }
  checkTimestamp(timestamp, now, tolerance, 'webhook-timestamp');

  const expected = createHmac('sha256', key).update(`${id!}.${timestamp}.`, 'utf8').update(body).digest();
  let matched = false;
  for (const candidate of signatures) {
    // Validated first so that a bad value is a mismatch, never a decoding error.
    if (!BASE64_SHA256.test(candidate)) continue;
    const given = Buffer.from(candidate, 'base64');
    if (given.length === expected.length && timingSafeEqual(given, expected)) matched = true;
  }
  if (!matched) {
    throw new WebhookSignatureError('signature_mismatch', 'no v1 signature in webhook-signature matches this secret and body');
  }
  return parseEvent(body);
}
