// Receiver side of readybell webhooks, published as `readybell/webhooks`.
// Self-contained on purpose (node:crypto and node:buffer only): integrators may copy this file
// into their own code base, so it must never import anything else from the project.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { Buffer } from 'node:buffer';

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

export type WebhookEvent = {
  id: string;
  object: 'event';
  type: string;
  created_at: string;
  livemode: boolean;
  api_version: string;
  branch: string;
  data: Record<string, unknown>;
  request?: { id: string | null; idempotency_key: string | null };
};

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

/**
 * Checks a readybell delivery and returns the parsed event.
 * `rawBody` must be the exact bytes received, before any JSON parsing.
 * Throws WebhookSignatureError (answer 400) when any check fails.
 */
export function verifyWebhook(
  rawBody: string | Buffer | Uint8Array,
  header: string | string[] | undefined | null,
  secret: string,
  options: VerifyOptions = {},
): WebhookEvent {
  if (typeof secret !== 'string' || secret.length === 0) {
    // A missing secret is a receiver configuration bug, not an attack: keep it out of the 400 path.
    throw new TypeError('verifyWebhook needs the endpoint secret (whsec_…)');
  }
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (!Number.isFinite(tolerance) || tolerance < 0) {
    throw new RangeError('toleranceSeconds must be a non-negative number');
  }
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);

  const body = toBuffer(rawBody);
  const { timestamp, signatures } = parseHeader(header);
  if (signatures.length === 0) {
    throw new WebhookSignatureError('no_signatures', 'Service-Signature carries no v1= signature');
  }
  if (Math.abs(now - timestamp) > tolerance) {
    throw new WebhookSignatureError(
      'timestamp_out_of_tolerance',
      `Service-Signature timestamp is more than ${tolerance} s away from now`,
    );
  }

  const expected = createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(`${timestamp}.`, 'utf8')
    .update(body)
    .digest();
  let matched = false;
  // No early exit: every candidate is compared, so timing reveals nothing about which one matched.
  for (const candidate of signatures) {
    if (signatureMatches(candidate, expected)) matched = true;
  }
  if (!matched) {
    throw new WebhookSignatureError('signature_mismatch', 'no v1 signature matches this secret and body');
  }

  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
  } catch {
    throw new WebhookSignatureError('invalid_payload', 'webhook body is not valid UTF-8 JSON');
  }
  if (
    typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) ||
    typeof (parsed as { id?: unknown }).id !== 'string' ||
    typeof (parsed as { type?: unknown }).type !== 'string'
  ) {
    throw new WebhookSignatureError('invalid_payload', 'webhook body is not an event object with id and type');
  }
  return parsed as WebhookEvent;
}
