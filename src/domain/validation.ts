// Exported as strings so the same rule can go into JSON Schema / OpenAPI `pattern` unchanged.
export const QUEUE_NAME_PATTERN = '^[A-Za-z0-9_]{1,16}$';
export const E164_PATTERN = '^\\+[1-9][0-9]{6,14}$';

const QUEUE_NAME = new RegExp(QUEUE_NAME_PATTERN);
const E164 = new RegExp(E164_PATTERN);

export function isQueueName(s: string): boolean {
  return QUEUE_NAME.test(s);
}

export function isE164(s: string): boolean {
  return E164.test(s);
}
