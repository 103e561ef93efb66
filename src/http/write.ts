// Every /v1 write goes through runWrite: the request's side of the one write path. It names the
// verb and its input, takes the request's fingerprint and decides which refusals are final answers
// (a problem document, HTTP's statuses), hands the write to writeOnce (src/write/idempotent-write.ts:
// one commit per write, the Idempotency-Key's record once), and presents the verb's typed result
// after the write: `present` turns it into the API's object (by default it is one already). The
// key keeps the answer as presented (what a replay shows: `forReplay`, when the first answer shows
// a secret once), so the write path asks for it in the write's commit. Decisions 0002, 0078.
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Ctx } from '../core/ctx.ts';
import { AppError } from '../domain/errors.ts';
import { writeOnce, type Stored, type WriteSpec } from '../write/idempotent-write.ts';
import { PROBLEM_CONTENT_TYPE } from '../contract/problem-catalogue.ts';
import { toProblem, type Problem } from './problems.ts';

/** A write as a route names it: the verb and its input, the status of its answer, and how its result is shown. */
export type HttpWrite<I, R, P> = WriteSpec<I, R> & {
  status: number;
  /** The API's object for the verb's result; the result itself when absent. */
  present?: (result: R) => P;
  /**
   * What a replay may show, when the first answer reveals a secret "shown once" (a new API key,
   * a one-time password): the stored copy leaves it out, so the secret is never at rest here.
   */
  forReplay?: (first: P) => unknown;
};

export async function runWrite<I, R, P = R>(
  req: FastifyRequest,
  reply: FastifyReply,
  ctx: Ctx,
  spec: HttpWrite<I, R, P>,
): Promise<FastifyReply> {
  const present = spec.present ?? ((r: R) => r as unknown as P);
  const forReplay = spec.forReplay;
  const key = ctx.idempotencyKey;
  const request =
    key === null
      ? null
      : {
          key,
          fingerprint: fingerprint(req),
          status: spec.status,
          answer: (r: R) => JSON.stringify(forReplay === undefined ? present(r) : forReplay(present(r))),
          finalRefusal: (err: unknown) => finalRefusal(req, err),
        };
  const written = await writeOnce(ctx, spec, request);
  if (written.replayed) ctx.services.metrics?.idempotencyReplays.inc({ route: req.routeOptions.url ?? 'unmatched' });
  if (written.kind === 'stored') return send(reply, written.stored, written.replayed);
  // The answer the key kept is the one to send, unless it left a secret out.
  const body = forReplay === undefined && written.answer !== null ? written.answer : JSON.stringify(present(written.result));
  return send(reply, { status: spec.status, body }, written.replayed);
}

function fingerprint(req: FastifyRequest): string {
  const body = (req as { rawBody?: string }).rawBody ?? '';
  // The JSON parser treats a whitespace-only body as no body; so does the fingerprint.
  // No body and `{}` mean the same request (every field of our bodies is optional or absent).
  const canonical = JSON.stringify(sortKeys(body.trim() === '' ? {} : JSON.parse(body)));
  return createHash('sha256').update(`${req.method} ${req.url}\n${canonical}`).digest('base64url');
}

/** Recursive, and safe: every body has passed the input guard's depth bound (MAX_BODY_DEPTH). */
function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
    );
  }
  return v;
}

function send(reply: FastifyReply, stored: Stored, replayed: boolean): FastifyReply {
  if (replayed) reply.header('Idempotent-Replayed', 'true');
  // No stored problem carries Retry-After: an answer that says "come back later" is never stored
  // (isFinalAnswer).
  reply.code(stored.status).type(stored.status >= 400 ? PROBLEM_CONTENT_TYPE : 'application/json; charset=utf-8');
  return reply.send(stored.body);
}

/**
 * Whether a refusal is the request's answer for good. One that tells the client to come back
 * later (a 429 such as the ring's 10 s cooldown, 409 in use, any 5xx) is not: the client is told
 * to retry with the same key after Retry-After, and that retry must perform the action, so the
 * refusal is not stored under the key.
 */
function isFinalAnswer(p: Problem): boolean {
  return p.status < 500 && p.status !== 429 && p.code !== 'idempotency-key-in-use';
}

/** A client error is the request's answer, stored like a success; null for anything else. */
function finalRefusal(req: FastifyRequest, err: unknown): Stored | null {
  if (!(err instanceof AppError)) return null;
  const { problem } = toProblem(req, err);
  return isFinalAnswer(problem) ? { status: problem.status, body: JSON.stringify(problem) } : null;
}
