// Each request's id: the one the caller (or a proxy in front: nginx's $request_id, a load
// balancer, a POS's own tracing) sent as X-Request-Id when it is one we can safely keep, else a
// fresh one. It is echoed as Request-Id on every answer, in problems as request_id, in the logs as
// reqId and in the events the request caused, so one id follows the request through both systems.
// The rule and why (decision 0067): 1 to 128 printable ASCII characters without spaces; any other
// value is ignored, never refused, because a request must not fail over a label.
import type { IncomingMessage } from 'node:http';
import { pooledRandom } from '../domain/random-pool.ts';

/** At most 128 characters from `!` to `~`: nothing a log line, a header or a JSON string needs to escape oddly. */
const ACCEPTED = /^[\x21-\x7e]{1,128}$/;

/** The caller's header, a request id integrators' tools (proxies, tracing) send and expect back. */
export const REQUEST_ID_HEADER = 'x-request-id';

export const newRequestId = (): string => `req_${pooledRandom(12).toString('base64url')}`;

/** The caller's X-Request-Id when it is acceptable, or undefined (a repeated header, a bad one). */
export function callersRequestId(req: Pick<IncomingMessage, 'headers'>): string | undefined {
  const sent = req.headers[REQUEST_ID_HEADER];
  return typeof sent === 'string' && ACCEPTED.test(sent) ? sent : undefined;
}

/** Fastify's genReqId: the caller's id kept, or a fresh one. */
export const requestIdFor = (req: IncomingMessage): string => callersRequestId(req) ?? newRequestId();
