// How a staff session chooses the mode of one request (docs/decisions/0003-modes-and-tenancy.md,
// 0008-staff-page.md). An API key is bound to one mode when it is made, and nothing in a request
// may change that: a key that sends the header is refused rather than ignored, so an integrator
// who believes a live key can be switched to test learns otherwise before touching live data.
// A session has no mode of its own: each request names it, so two tabs can work in different
// modes and no request acts on test data by a setting its sender cannot see.
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../domain/errors.ts';
import type { Mode } from '../../core/tenancy.ts';

export const MODE_HEADER = 'readybell-mode';

const malformed = (detail: string): AppError =>
  new AppError('bad-request', detail, { errors: [{ pointer: '/headers/readybell-mode', detail }] });

/** The mode a staff session's request asks for: `live` when it sends no header. */
export function sessionMode(req: FastifyRequest): Mode {
  const sent = req.headers[MODE_HEADER];
  if (sent === undefined) return 'live';
  if (sent === 'live' || sent === 'test') return sent;
  throw malformed('Readybell-Mode must be `live` or `test`.');
}

/** An API key's mode is the key's own; a request that tries to choose it is refused. */
export function refuseModeHeader(req: FastifyRequest, keyMode: Mode): void {
  if (req.headers[MODE_HEADER] === undefined) return;
  throw malformed(
    `Readybell-Mode is for staff sessions only; an API key always acts in its own mode (this one: ${keyMode}). Use an rk_test_ key for test data.`,
  );
}
