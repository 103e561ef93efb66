// Typed errors thrown by actions. They carry a problem code and know nothing about HTTP; the edge
// (http/problems.ts) maps each code to a status once.
export type ErrorCode =
  | 'invalid-json'
  | 'unsupported-media-type'
  | 'validation-failed'
  | 'bad-request'
  | 'unauthenticated'
  | 'invalid-api-key'
  | 'plan-required'
  | 'forbidden'
  | 'not-found'
  | 'method-not-allowed'
  | 'payload-too-large'
  | 'request-timeout'
  | 'expectation-failed'
  | 'ticket-state-conflict'
  | 'conflict'
  | 'last-owner'
  | 'idempotency-key-in-use'
  | 'idempotency-key-reuse'
  | 'rate-limited'
  | 'internal'
  | 'not-implemented'
  | 'unavailable';

export type FieldError = { pointer: string; detail: string };

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly detail: string;
  readonly extra: Record<string, unknown>;
  constructor(code: ErrorCode, detail: string, extra: Record<string, unknown> = {}) {
    // An AppError is an answer (404, 409, 429 …), not a fault: nobody reads its stack, and
    // capturing one was 16 µs of a 125 µs not-found request, paid on every refused request.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(detail);
    Error.stackTraceLimit = limit;
    this.name = 'AppError';
    this.code = code;
    this.detail = detail;
    this.extra = extra;
  }
}

/** 503: the node cannot take the request now (shutting down, overloaded); the client retries after Retry-After. */
export const unavailable = (detail: string, retryAfterSeconds: number): AppError =>
  new AppError('unavailable', detail, { retry_after: retryAfterSeconds });

export const notFound = (what: string): AppError => new AppError('not-found', `No such ${what}.`);

export const invalid = (pointer: string, detail: string): AppError =>
  new AppError('validation-failed', detail, { errors: [{ pointer, detail }] satisfies FieldError[] });
