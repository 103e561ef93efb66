// Exported as strings so the same rule can go into JSON Schema / OpenAPI `pattern` unchanged.
export const QUEUE_NAME_PATTERN = '^[A-Za-z0-9_]{1,16}$';
export const E164_PATTERN = '^\\+[1-9][0-9]{6,14}$';

/**
 * What a pattern asks for, in words: a value refused by one is told this rather than the regular
 * expression (problems.ts puts it in the field's error).
 */
export const PATTERN_WORDS: Readonly<Record<string, string>> = {
  [QUEUE_NAME_PATTERN]: 'must be a queue name: 1 to 16 letters, digits or _, such as "A" or "DRINKS"',
  [E164_PATTERN]:
    'must be a phone number in international (E.164) form: +, the country code and the number, digits only, such as +33612345678',
};

/** The largest page of a ticket list: the list's `limit` admits no more, and the store's query is built for it. */
export const LIST_LIMIT_MAX = 100;

const QUEUE_NAME = new RegExp(QUEUE_NAME_PATTERN);
const E164 = new RegExp(E164_PATTERN);

export function isQueueName(s: string): boolean {
  return QUEUE_NAME.test(s);
}

export function isE164(s: string): boolean {
  return E164.test(s);
}
