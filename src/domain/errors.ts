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
  | 'ticket-state-conflict'
  | 'conflict'
  | 'idempotency-key-in-use'
  | 'idempotency-key-reuse'
  | 'rate-limited'
  | 'internal'
  | 'unavailable';

export type FieldError = { pointer: string; detail: string };

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly detail: string;
  readonly extra: Record<string, unknown>;
  constructor(code: ErrorCode, detail: string, extra: Record<string, unknown> = {}) {
    super(detail);
    this.name = 'AppError';
    this.code = code;
    this.detail = detail;
    this.extra = extra;
  }
}

export const notFound = (what: string): AppError => new AppError('not-found', `No such ${what}.`);

export const invalid = (pointer: string, detail: string): AppError =>
  new AppError('validation-failed', detail, { errors: [{ pointer, detail }] satisfies FieldError[] });
