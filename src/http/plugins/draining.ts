// A request that reaches a closing server (graceful shutdown: it arrived on a connection that was
// still open) is answered 503 unavailable as a problem document, like every other answer, instead
// of Fastify's own JSON (its return503OnClosing is off for this). Connection: close sends the
// client's retry to a new connection, and so to a node that is up.
import type { FastifyInstance } from 'fastify';
import { unavailable } from '../../domain/errors.ts';

export function registerDraining(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (_req, reply) => {
    if (!closing) return;
    reply.header('Connection', 'close');
    throw unavailable('This node is shutting down; retry the request.', 1);
  });
}
