export type ParsedIdempotencyKey = { ok: true; key: string | null } | { ok: false; detail: string };

const MAX_LENGTH = 255;
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
// HTTP optional whitespace (RFC 9110 §5.6.3) around a field value is not part of the value.
const OWS_EDGES = /^[ \t]+|[ \t]+$/g;

function fail(detail: string): ParsedIdempotencyKey {
  return { ok: false, detail };
}

// Structured Field String (RFC 9651 §4.2.5): only `\"` and `\\` are valid escapes.
function unquote(value: string): { key: string } | { detail: string } {
  let key = '';
  for (let i = 1; i < value.length; i++) {
    const c = value[i];
    if (c === '\\') {
      const escaped = value[i + 1];
      if (escaped !== '"' && escaped !== '\\') {
        return { detail: 'In a quoted Idempotency-Key, a backslash may only escape `"` or `\\`.' };
      }
      key += escaped;
      i++;
    } else if (c === '"') {
      if (i !== value.length - 1) {
        return { detail: 'The quoted Idempotency-Key has characters after its closing quote; send one key.' };
      }
      return { key };
    } else {
      key += c;
    }
  }
  return { detail: 'The quoted Idempotency-Key has no closing quote.' };
}

/**
 * Accepts the key bare (`abc`) or as the draft-ietf-httpapi-idempotency-key-header String
 * (`"abc"`); both spellings name the same key so clients may switch without losing dedupe.
 */
export function parseIdempotencyKey(header: string | string[] | undefined): ParsedIdempotencyKey {
  if (header === undefined) return { ok: true, key: null };
  let raw: string;
  if (Array.isArray(header)) {
    if (header.length === 0) return { ok: true, key: null };
    // Picking one of several keys would dedupe against a key the client may not have meant.
    if (header.length > 1) return fail('Send the Idempotency-Key header once, with a single key.');
    raw = header[0] ?? '';
  } else {
    raw = header;
  }
  const value = raw.replace(OWS_EDGES, '');
  if (value === '') return fail('The Idempotency-Key header is empty; send 1 to 255 printable ASCII characters.');
  // Checked on the raw value so the detail never has to echo bytes we cannot display safely.
  if (!PRINTABLE_ASCII.test(value)) {
    return fail('The Idempotency-Key may contain only printable ASCII characters (space to ~).');
  }

  let key = value;
  if (value.startsWith('"')) {
    const unquoted = unquote(value);
    if ('detail' in unquoted) return fail(unquoted.detail);
    key = unquoted.key;
  }
  if (key === '') return fail('The Idempotency-Key is empty; send 1 to 255 printable ASCII characters.');
  if (key.length > MAX_LENGTH) {
    return fail(`The Idempotency-Key is ${key.length} characters long; the maximum is ${MAX_LENGTH}.`);
  }
  if (key !== key.trim()) {
    return fail('The Idempotency-Key must not start or end with a space.');
  }
  return { ok: true, key };
}
