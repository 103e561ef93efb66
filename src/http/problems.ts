// RFC 9457 problem documents: the one mapping from error codes to HTTP. Every error of every
// route, including framework errors (bad JSON, wrong media type, body too large, validation)
// comes through toProblem, so no answer is ever an HTML page or a stack trace.
import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, type ErrorCode, type FieldError } from '../domain/errors.ts';
import { PATTERN_WORDS } from '../domain/validation.ts';

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

export type Problem = {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  code: ErrorCode;
  request_id: string;
  errors?: FieldError[];
  [extra: string]: unknown;
};

export function problem(req: FastifyRequest, code: ErrorCode, detail: string, extra: Record<string, unknown> = {}): Problem {
  const entry = PROBLEM_CATALOGUE[code];
  return {
    type: `/problems/${code}`,
    title: entry.title,
    status: entry.status,
    detail,
    instance: req.url.split('?')[0] ?? req.url,
    code,
    request_id: String(req.id),
    ...extra,
  };
}

export function sendProblem(reply: FastifyReply, p: Problem): FastifyReply {
  if (typeof p.retry_after === 'number') reply.header('Retry-After', String(p.retry_after));
  return reply.code(p.status).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(p));
}

/**
 * A whole HTTP/1.1 answer for a request too malformed to reach Fastify (bad request line or
 * header) or too slow to arrive: Node's parser gives up on it where there may be no request object,
 * so the problem is written to the socket directly, still with a Request-Id to quote.
 */
export function rawProblemResponse(requestId: string, detail: string, code: ErrorCode = 'bad-request'): string {
  const entry = PROBLEM_CATALOGUE[code];
  const body = JSON.stringify({
    type: `/problems/${code}`,
    title: entry.title,
    status: entry.status,
    detail,
    instance: '/',
    code,
    request_id: requestId,
  });
  return (
    `HTTP/1.1 ${entry.status} ${STATUS_CODES[entry.status]}\r\nContent-Type: ${PROBLEM_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
    `Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`
  );
}

type AjvError = { instancePath?: string; keyword?: string; message?: string; params?: Record<string, unknown> };

function fieldErrors(validation: AjvError[], context: string | undefined): FieldError[] {
  const prefix = context === 'body' ? '' : context === 'querystring' ? '/query' : `/${context ?? 'request'}`;
  return validation.map((v) => {
    let pointer = `${prefix}${v.instancePath ?? ''}`;
    let detail = v.message ?? 'is invalid';
    if (v.keyword === 'additionalProperties' && typeof v.params?.additionalProperty === 'string') {
      pointer = `${pointer}/${v.params.additionalProperty}`;
      detail = 'is not a known field';
    } else if (v.keyword === 'required' && typeof v.params?.missingProperty === 'string') {
      pointer = `${pointer}/${v.params.missingProperty}`;
      detail = 'is required';
    } else if (v.keyword === 'pattern' && typeof v.params?.pattern === 'string') {
      // A person reads this: the rule in words where there are words for it, not the expression.
      detail =
        PATTERN_WORDS[v.params.pattern] ??
        (/^\^[a-z]+_$/.test(v.params.pattern) ? `must start with "${v.params.pattern.slice(1)}"` : detail);
    }
    return { pointer: pointer === '' ? '/' : pointer, detail };
  });
}

/** Maps anything thrown in a request to a problem; the boolean says whether it is our fault. */
export function toProblem(req: FastifyRequest, err: unknown): { problem: Problem; internal: boolean } {
  if (err instanceof AppError) return { problem: problem(req, err.code, err.detail, err.extra), internal: false };
  const fe = err as FastifyError & { validation?: AjvError[]; validationContext?: string };
  if (Array.isArray(fe.validation)) {
    const errors = fieldErrors(fe.validation, fe.validationContext);
    const where =
      fe.validationContext === 'body'
        ? 'The request body'
        : fe.validationContext === 'querystring'
          ? 'The query string'
          : `The ${fe.validationContext ?? 'request'}`;
    return {
      problem: problem(req, 'validation-failed', `${where} is invalid: ${errors.map((e) => `${e.pointer} ${e.detail}`).join('; ')}.`, {
        errors,
      }),
      internal: false,
    };
  }
  switch (fe.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return {
        problem: problem(
          req,
          'unsupported-media-type',
          `Content-Type ${String(req.headers['content-type'] ?? '(none)')} is not supported; send application/json.`,
        ),
        internal: false,
      };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { problem: problem(req, 'payload-too-large', 'The request body is too large.'), internal: false };
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_ERR_CTP_INVALID_TYPE':
      return {
        problem: problem(req, 'bad-request', 'The request body does not match its Content-Length or Content-Type.'),
        internal: false,
      };
    case 'FST_ERR_BAD_URL':
      return { problem: problem(req, 'bad-request', 'The path is not a valid URL: it has a malformed %-escape.'), internal: false };
    case 'FST_ERR_ASYNC_CONSTRAINT':
      return { problem: problem(req, 'not-found', 'No such resource.'), internal: false };
  }
  const status = typeof fe.statusCode === 'number' ? fe.statusCode : 500;
  if (status === 413) return { problem: problem(req, 'payload-too-large', 'The request body is too large.'), internal: false };
  if (status >= 400 && status < 500) return { problem: problem(req, 'bad-request', 'The request is malformed.'), internal: false };
  return { problem: problem(req, 'internal', 'An unexpected error occurred. It has been logged with this request id.'), internal: true };
}
