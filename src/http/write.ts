// Every /v1 write goes through runWrite: the request's side of the one write path. It takes the
// request's fingerprint and decides which refusals are final answers (a problem document, HTTP's
// statuses), hands the write to writeOnce (src/write/idempotent-write.ts: one commit per write,
// the Idempotency-Key's record once), and sends the answer, marked when it is a replay. Decision 0002.
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Ctx } from '../core/ctx.ts';
import { AppError } from '../domain/errors.ts';
import { writeOnce, type Stored, type WriteSpec } from '../write/idempotent-write.ts';
import { PROBLEM_CONTENT_TYPE } from '../contract/problem-catalogue.ts';
import { toProblem, type Problem } from './problems.ts';

export async function runWrite<R, I>(req: FastifyRequest, reply: FastifyReply, ctx: Ctx, spec: WriteSpec<R, I>): Promise<FastifyReply> {
  const key = ctx.idempotencyKey;
  const request = key === null ? null : { key, fingerprint: fingerprint(req), finalRefusal: (err: unknown) => finalRefusal(req, err) };
  const { stored, replayed } = await writeOnce(ctx, spec, request);
  if (replayed) ctx.services.metrics?.idempotencyReplays.inc({ route: req.routeOptions.url ?? 'unmatched' });
  return send(reply, stored, replayed);
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
