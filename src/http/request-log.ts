// Fastify's per-request log lines ("incoming request", "request completed"), written where the
// request's trace span is active, so that with tracing on they carry its trace_id and span_id like
// every other line of the request (log.ts). Fastify writes "incoming request" before any hook
// runs, before the tracing plugin's own onRequest hook has started the span; here the line waits
// for the first hook after it. Without tracing the lines are the same as Fastify's.
import { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';

export class RequestLog extends LogController {
  /** Fastify's call, before the span exists: the line is written by the hook of attach() instead. */
  override incomingRequest(_request: FastifyRequest, _reply: FastifyReply): void {}

  /**
   * Writes "incoming request" from an onRequest hook: the tracing plugin adds its own when the
   * server is created, so this one runs after it, inside the request's span.
   */
  attach(app: FastifyInstance): void {
    app.addHook('onRequest', (request, reply, done) => {
      super.incomingRequest(request, reply);
      done();
    });
  }
}
