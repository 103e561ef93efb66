// Twilio's request signature (`X-Twilio-Signature`), which Twilio-compatible providers also send
// with their webhooks: base64 of HMAC-SHA1, keyed with the account's auth token, over the full URL
// the provider was told to call (query string included), followed, for a form-encoded POST, by
// every parameter's name and value, sorted by name (a repeated name: its distinct values sorted).
// Documented at twilio.com/docs/usage/security; test/unit/twilio-signature.test.ts holds this
// against the `twilio` package's own helper.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** A form body's parameters, each name with all its values (a name may repeat). */
export type FormParams = ReadonlyMap<string, readonly string[]>;

export function formParams(body: string): Map<string, string[]> {
  const params = new Map<string, string[]>();
  for (const [name, value] of new URLSearchParams(body)) {
    const values = params.get(name);
    if (values === undefined) params.set(name, [value]);
    else values.push(value);
  }
  return params;
}

export function twilioSignature(authToken: string, url: string, params: FormParams): string {
  let data = url;
  // Default sort (UTF-16 code units), as Twilio's helpers sort.
  for (const name of [...params.keys()].sort()) {
    for (const value of [...new Set(params.get(name))].sort()) data += name + value;
  }
  return createHmac('sha1', authToken).update(data, 'utf8').digest('base64');
}

const URL_PARTS = /^(https?:\/\/)([^/?#@]*@)?(\[[^\]]*\]|[^/?#:]*)(:\d*)?(.*)$/i;

/**
 * The URL as configured, without a port and with the scheme's default port: a provider signs the
 * URL as it was typed into its console, which may or may not name the port (Twilio's helpers try
 * both too).
 */
export function signedUrlCandidates(url: string): string[] {
  const m = URL_PARTS.exec(url);
  if (m === null) return [url];
  const [, scheme, user = '', host, port, rest] = m as unknown as [string, string, string | undefined, string, string | undefined, string];
  const defaultPort = scheme.toLowerCase() === 'https://' ? ':443' : ':80';
  const bare = `${scheme}${user}${host}${rest}`;
  const withPort = `${scheme}${user}${host}${port ?? defaultPort}${rest}`;
  return [...new Set([url, bare, withPort])];
}

/** Whether `header` signs this request; constant-time in the signature compared. */
export function validTwilioSignature(authToken: string, header: string | undefined, url: string, params: FormParams): boolean {
  if (header === undefined || header.length === 0 || authToken.length === 0) return false;
  const given = Buffer.from(header, 'utf8');
  let valid = false;
  for (const candidate of signedUrlCandidates(url)) {
    const expected = Buffer.from(twilioSignature(authToken, candidate, params), 'utf8');
    // The expected length is fixed by SHA-1 and not secret: a length mismatch may return early.
    if (expected.length === given.length && timingSafeEqual(expected, given)) valid = true;
  }
  return valid;
}
