// GET /v1/stream: the branch's live updates as server-sent events, for the staff page's board and
// for integrators who would rather listen than poll. Messages are the small after-commit notices
// of src/actions/publish.ts ("ticket X is now ready"); clients fetch the objects they care about
// through the ordinary /v1 reads, so the stream never carries more than the caller may read.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Services } from '../../../core/ctx.ts';
import { channels } from '../../../core/bus.ts';
import { SSE_HEADERS } from '../../../realtime/sse.ts';
import { apiKeyHolds } from '../../../actions/api-key-auth.ts';
import { findLiveSession } from '../../../actions/session-lookup.ts';
import { sessionOf } from '../../plugins/session.ts';
import { Type } from 'typebox';
import { operation, typed } from '../../operation.ts';
import { ctxFor } from './context.ts';
import { openLiveStream } from '../../../metrics.ts';

export const STREAM_PING_MS = 25_000;
/** How often an open stream re-checks that its credentials still hold (revoked key, signed-out session). */
export const STREAM_RECHECK_MS = 60_000;

const DESCRIPTION = [
  'A `text/event-stream` of live updates for the branch and mode of the credentials (a staff session: the mode its `Readybell-Mode` header names, live by default).',
  'The first event is `event: ready`; then every change is a default event whose `data` is JSON with `type`',
  '(`ticket.created`, `ticket.ringing` when a ring starts, `ticket.rung` with its result in `ring`, `ticket.collected`, `ticket.cancelled`,',
  '`ticket.expired`, `ticket.customer_viewed`, … — new types may come: ignore the ones you do not know),',
  '`ticket_id`, `status`, `queue` and `display_number`. Comment lines (`: ping`) keep proxies from closing an idle stream.',
  'Nothing is replayed: after a reconnect, read the current state again (e.g. `GET /v1/tickets`).',
  'The stream ends when its key is revoked or its session ends.',
].join(' ');

async function stillValid(services: Services, req: FastifyRequest): Promise<boolean> {
  const auth = req.auth!;
  const session = sessionOf(req);
  if (session !== null) return (await findLiveSession(services, session.token, services.clock.now())) !== undefined;
  if (auth.actor.kind === 'api_key') return apiKeyHolds(services, auth.actor.keyId);
  return true;
}

export function registerStreamRoute(fastify: FastifyInstance, services: Services): void {
  const app = typed(fastify);
  const open = new Set<() => void>();
  // Long-lived responses would hold a graceful shutdown forever: end them first.
  app.addHook('preClose', async () => {
    for (const end of [...open]) end();
  });

  app.get(
    '/stream',
    {
      schema: operation({
        operationId: 'streamLiveUpdates',
        tag: 'Live updates',
        summary: 'Stream live updates',
        description: DESCRIPTION,
        answers: {
          200: {
            description: 'A stream of server-sent events, open until the client leaves or its credentials end',
            mediaType: 'text/event-stream',
            schema: Type.String({
              description: 'Server-sent events: `event: ready` first, then one default event per change',
              examples: [
                'event: ready\ndata: {"branch":"br_01m81j194tb8kmycb0gheeaj9r","livemode":false}\n\nid: 1\ndata: {"type":"ticket.ready","ticket_id":"tk_01m81j19a75aagw39z4av2ch96","status":"ready","queue":"A","display_number":"A-42"}\n\n',
              ],
            }),
          },
        },
      }),
    },
    async (req, reply) => {
      const ctx = ctxFor(req, services);
      // HEAD asks for GET's headers; a hijacked response to it would never send them.
      if (req.method === 'HEAD') return reply.headers(SSE_HEADERS).send();
      reply.hijack();
      const raw = reply.raw;
      raw.writeHead(200, { ...(reply.getHeaders() as Record<string, string>), ...SSE_HEADERS });
      raw.write(`retry: 3000\nevent: ready\ndata: ${JSON.stringify({ branch: ctx.branchId, livemode: ctx.mode === 'live' })}\n\n`);
      let seq = 0;
      const closed = openLiveStream(services.metrics, 'stream');
      const unsubscribe = services.bus.subscribe(channels.branch(ctx.branchId, ctx.mode), (message) => {
        raw.write(`id: ${++seq}\ndata: ${JSON.stringify(message)}\n\n`);
      });
      let sinceCheck = 0;
      const timer = setInterval(() => {
        raw.write(': ping\n\n');
        sinceCheck += STREAM_PING_MS;
        if (sinceCheck < STREAM_RECHECK_MS) return;
        sinceCheck = 0;
        stillValid(services, req).then(
          (ok) => {
            if (!ok) end();
          },
          () => {},
        );
      }, STREAM_PING_MS);
      timer.unref();
      const end = (): void => {
        if (!open.delete(end)) return;
        clearInterval(timer);
        unsubscribe();
        closed();
        raw.end();
      };
      open.add(end);
      req.raw.on('close', end);
    },
  );
}
