// RFC 9457 problem documents: the one mapping from error codes to HTTP. Every error of every
// route, including framework errors (bad JSON, wrong media type, body too large, validation)
// comes through toProblem, so no answer is ever an HTML page or a stack trace.
import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, type ErrorCode, type FieldError } from '../domain/errors.ts';
import { PATTERN_WORDS } from '../domain/validation.ts';
import { PROBLEM_CATALOGUE, PROBLEM_CONTENT_TYPE } from '../contract/problem-catalogue.ts';

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
