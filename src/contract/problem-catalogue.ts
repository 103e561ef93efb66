// The problem types of the API: for every error code, its HTTP status, title and help. Part of the
// contract (the OpenAPI document, the problem pages and the error schema list them), so it sits
// with the object schemas below the verbs; http/problems.ts turns errors into documents with it.
import type { ErrorCode } from '../domain/errors.ts';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export const PROBLEM_CATALOGUE: Record<ErrorCode, { status: number; title: string; help: string }> = {
  'invalid-json': {
    status: 400,
    title: 'Invalid JSON',
    help: 'The request body is not valid JSON, or is nested more than 32 levels deep. Send a JSON object, or no body at all where none is needed.',
  },
  'unsupported-media-type': {
    status: 415,
    title: 'Unsupported media type',
    help: 'Send request bodies as `Content-Type: application/json`, uncompressed (without `Content-Encoding`).',
  },
  'validation-failed': {
    status: 422,
    title: 'Validation failed',
    help: 'One or more fields are missing, unknown, of the wrong type or out of range, or a string holds a NUL character or a lone UTF-16 surrogate. `errors[]` lists each, with a JSON Pointer to the field.',
  },
  'bad-request': {
    status: 400,
    title: 'Bad request',
    help: 'A header or parameter is malformed (for example an empty or over-long Idempotency-Key).',
  },
  unauthenticated: {
    status: 401,
    title: 'Unauthenticated',
    help: 'Send `Authorization: Bearer <API key>`; keys start with `rk_live_` or `rk_test_`.',
  },
  'invalid-api-key': {
    status: 401,
    title: 'Invalid API key',
    help: 'The key is unknown or has been revoked. Create a new key in the staff page (owner role) or with the CLI.',
  },
  'plan-required': {
    status: 403,
    title: 'Plan required',
    help: "The account's plan does not include the API. The pro and business plans do.",
  },
  forbidden: {
    status: 403,
    title: 'Forbidden',
    help: 'The credentials are valid but may not perform this operation (role, mode or CSRF token).',
  },
  'not-found': {
    status: 404,
    title: 'Not found',
    help: 'There is no such resource for this branch and mode. Objects of other branches and modes are reported as not found too.',
  },
  'method-not-allowed': {
    status: 405,
    title: 'Method not allowed',
    help: 'The resource exists but does not support this HTTP method; see the `Allow` header.',
  },
  'payload-too-large': { status: 413, title: 'Payload too large', help: 'The request body is larger than the service accepts.' },
  'request-timeout': {
    status: 408,
    title: 'Request timeout',
    help: 'The request (its headers and its whole body) did not arrive within the time the service allows. Send the request again, at once and in full.',
  },
  'expectation-failed': {
    status: 417,
    title: 'Expectation failed',
    help: 'The only expectation readybell meets is `Expect: 100-continue`; send the request without any other.',
  },
  'ticket-state-conflict': {
    status: 409,
    title: 'Ticket state conflict',
    help: "The operation is not allowed in the ticket's current state; `ticket_status` says which state it is in.",
  },
  'last-owner': {
    status: 409,
    title: 'Last owner',
    help: 'An account always keeps at least one owner, so nobody locks it out of its own administration. Make another user owner first, then change or remove this one.',
  },
  conflict: { status: 409, title: 'Conflict', help: 'The request conflicts with the current state of the resource.' },
  'idempotency-key-in-use': {
    status: 409,
    title: 'Idempotency key in use',
    help: 'A request with this Idempotency-Key is still being processed. Retry after `Retry-After` seconds to get its result.',
  },
  'idempotency-key-reuse': {
    status: 422,
    title: 'Idempotency key reused',
    help: 'This Idempotency-Key was used with a different method, path or body in the last 24 hours. Use a new key for a new request.',
  },
  'rate-limited': {
    status: 429,
    title: 'Rate limited',
    help: 'The token bucket for this key is empty. Retry after `Retry-After` seconds; the RateLimit header shows what is left.',
  },
  internal: {
    status: 500,
    title: 'Internal error',
    help: 'Something went wrong on our side. The request id helps us find it; retrying with the same Idempotency-Key is safe.',
  },
  'not-implemented': {
    status: 501,
    title: 'Not implemented',
    help: 'The request uses an HTTP feature readybell does not implement: a method none of its routes has (CONNECT included), or a transfer coding other than chunked.',
  },
  unavailable: {
    status: 503,
    title: 'Service unavailable',
    help: 'The node is overloaded or shutting down, or a dependency is unavailable. Retry after `Retry-After` seconds; a write refused so was not performed, and retrying it with the same Idempotency-Key is safe.',
  },
};

/** Every problem code the service answers with, in the catalogue's order. */
export const PROBLEM_CODES = Object.keys(PROBLEM_CATALOGUE) as ErrorCode[];
