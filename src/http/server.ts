// Builds the Fastify app: request ids, the JSON parser, validation, problems and the hooks every
// request passes; then mounts the route table (route-table.ts), the one place routes are added.
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Services } from '../core/ctx.ts';
import { AppError } from '../domain/errors.ts';
import type { VapidKeyStore } from '../channels/vapid.ts';
import type { Live } from '../realtime/live.ts';
import { sendProblem, toProblem, problem, rawProblemResponse } from './problems.ts';
import { registerHsts } from './plugins/hsts.ts';
import { registerApiAnswerHeaders } from './plugins/api-answer-headers.ts';
import { describeJsonError } from './json-error.ts';
import { registerInputGuard } from './plugins/input-guard.ts';
import { registerRequestFraming } from './plugins/request-framing.ts';
import { registerLingeringClose } from './plugins/lingering-close.ts';
import { registerDraining } from './plugins/draining.ts';
import { registerCredentialNews } from './plugins/credential-news.ts';
import { registerLoadShedding } from './plugins/load-shedding.ts';
import { registerCompression } from './plugins/compression.ts';
import { type AppModule, mountedRoutes, mountRouteTable } from './route-table.ts';
import { SHARED_SCHEMAS } from '../contract/schemas.ts';
import { schemaCompilers } from './schema-compilers.ts';
import type { RateLimiter } from '../realtime/limiter.ts';
import { registerRequestMetrics } from './metrics-server.ts';
import { newRequestId, REQUEST_ID_HEADER, requestIdFor } from './request-id.ts';
import { RequestLog } from './request-log.ts';
import type { Metrics } from '../core/metrics.ts';

declare module 'fastify' {
  interface FastifyRequest {
    rawBody?: string;
  }
}

export type AppDeps = {
  services: Services;
  limiter: RateLimiter;
  lastUsedKeys: Set<string>;
  /** The customer pages' and boards' hub and data (createLive). */
  live: Live;
  /** The push server key the customer page subscribes with (installRingChannels). */
  vapid: VapidKeyStore;
  /** The installed channels' and connectors' modules (their routes, /readyz's health). */
  modules?: readonly AppModule[];
  /** Dependencies the node serves without, degraded (Redis): /readyz reports them, never a 503. */
  readiness?: Record<string, () => Promise<void>>;
  metrics?: Metrics;
};

/** A request line (RFC 9112 §3): a method token, a target and the HTTP version. */
const REQUEST_LINE = /^[!#$%&'*+.^_`|~\w-]+ \S+ HTTP\/1\.[01]\r?\n/;

// Node looks for requests past their timeout only every connectionsCheckingInterval (30 s by
// default, which would let a 15 s timeout run to 45 s); the look is cheap, so at least every second.
const slowClientChecks = (timeoutMs: number) => ({
  headersTimeout: timeoutMs,
  connectionsCheckingInterval: Math.min(1000, Math.ceil(timeoutMs / 2)),
});

/**
 * Request-Id on every answer; X-Request-Id too when the caller sent one, which tools that set it
 * look for in the answer. It holds the id in force: the caller's, or a fresh one when theirs was refused.
 */
function echoRequestId(req: FastifyRequest, reply: FastifyReply): void {
  reply.header('Request-Id', req.id);
  if (req.headers[REQUEST_ID_HEADER] !== undefined) reply.header('X-Request-Id', req.id);
}

export async function buildServer(deps: AppDeps): Promise<FastifyInstance> {
  const { services } = deps;
  const { config } = services;
  const requestLog = new RequestLog();
  const app = Fastify({
    loggerInstance: services.log,
    logController: requestLog,
    // An acceptable X-Request-Id from the caller is kept (request-id.ts), else a fresh id.
    genReqId: requestIdFor,
    requestIdHeader: false,
    bodyLimit: config.bodyLimitBytes,
    trustProxy: config.trustProxy,
    return503OnClosing: false, // registerDraining answers instead, with a problem document
    // A client whose request (headers and body) has not arrived in full by then is answered 408 by
    // clientErrorHandler. Node times the request from its first byte to its last, not the response,
    // so a live stream, whose request is complete when it opens, is never cut.
    requestTimeout: config.requestTimeoutMs,
    // Errors the router raises before any hook runs (a malformed %-escape in the path): they get
    // a problem and a Request-Id like everything else, not Fastify's own JSON shape.
    frameworkErrors: (err, req, reply) => {
      echoRequestId(req, reply);
      return sendProblem(reply, toProblem(req, err).problem);
    },
    // Requests Node's HTTP parser refuses (malformed request line or headers, headers too large)
    // or gives up waiting for (requestTimeout).
    clientErrorHandler: (err, socket) => {
      const code = (err as { code?: string }).code;
      // An answer already under way on this socket cannot be followed by another.
      const answering = (socket as { _httpMessage?: { headersSent?: boolean } | null })._httpMessage?.headersSent === true;
      if (code === 'ECONNRESET' || !socket.writable || answering) {
        socket.destroy();
        return;
      }
      if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
        const reqId = newRequestId();
        services.log.info({ reqId }, 'request not received in full in time: answered 408');
        socket.end(
          rawProblemResponse(reqId, `The request did not arrive in full within ${config.requestTimeoutMs} ms.`, 'request-timeout'),
        );
        return;
      }
      // A well-formed request line whose method the parser does not know asks for a method the
      // service does not implement (RFC 9110 §9.1); a line that is no request line is malformed.
      const rawPacket = (err as unknown as { rawPacket?: Buffer }).rawPacket;
      if (code === 'HPE_INVALID_METHOD' && rawPacket !== undefined && REQUEST_LINE.test(rawPacket.toString('latin1'))) {
        socket.end(rawProblemResponse(newRequestId(), 'The request method is not one readybell implements.', 'not-implemented'));
        return;
      }
      const detail =
        code === 'HPE_HEADER_OVERFLOW'
          ? 'The request headers are too large.'
          : 'The request is not valid HTTP/1.1 (malformed request line or header).';
      socket.end(rawProblemResponse(newRequestId(), detail));
    },
    ...(config.tls
      ? { https: { cert: config.tls.cert, key: config.tls.key, ...slowClientChecks(config.requestTimeoutMs) } }
      : { http: slowClientChecks(config.requestTimeoutMs) }),
  }) as unknown as FastifyInstance;

  requestLog.attach(app);
  app.addHook('onRequest', async (req, reply) => {
    echoRequestId(req, reply);
  });
  registerHsts(app);
  registerApiAnswerHeaders(app);
  registerRequestFraming(app, newRequestId);
  registerLingeringClose(app);
  registerInputGuard(app);
  registerDraining(app);
  registerCredentialNews(app, services);
  const shedding = await registerLoadShedding(app, config.shedding);
  await registerCompression(app); // before any route: it attaches itself to each route as it is added

  // The contract's shared objects, then the installed modules' (a connector's connection object).
  const schemas = [...SHARED_SCHEMAS, ...(deps.modules ?? []).flatMap((m) => m.schemas ?? [])];
  const compilers = schemaCompilers(schemas);
  app.setValidatorCompiler(compilers.validator);
  app.setSerializerCompiler(compilers.serializer);
  for (const s of schemas) app.addSchema(s);

  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    ['application/json', 'application/problem+json', 'application/merge-patch+json'],
    { parseAs: 'string' },
    (req, body, done) => {
      const text = body as string;
      (req as FastifyRequest).rawBody = text;
      if (text.trim() === '') return done(null, undefined);
      try {
        done(null, JSON.parse(text));
      } catch (err) {
        done(new AppError('invalid-json', describeJsonError(text, err)), undefined);
      }
    },
  );
  // Form posts from the no-JavaScript customer page. Never for /v1: the API speaks JSON only, and
  // a form is the one body a foreign site can post cross-origin without a CORS preflight.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (req, body, done) => {
    if (req.url.startsWith('/v1/'))
      return done(Object.assign(new Error('form body'), { code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE' }), undefined);
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  app.setErrorHandler((err, req, reply) => {
    const { problem: p, internal } = toProblem(req, err);
    if (internal) req.log.error({ err }, 'unhandled error');
    // Every 401 names the scheme that would succeed (RFC 9110 §15.5.2); a key that was sent and
    // refused is an invalid token (RFC 6750 §3.1).
    if (p.status === 401)
      reply.header(
        'WWW-Authenticate',
        p.code === 'invalid-api-key' ? 'Bearer realm="readybell", error="invalid_token"' : 'Bearer realm="readybell"',
      );
    return sendProblem(reply, p);
  });

  // The Allow header of a 405 lists the methods the route table has for the path.
  const patterns = new Map<string, RegExp>();
  const patternOf = (url: string): RegExp => {
    let p = patterns.get(url);
    if (p === undefined) patterns.set(url, (p = new RegExp('^' + url.replace(/:[^/]+/g, '[^/]+').replace(/\*/g, '.*') + '/?$')));
    return p;
  };
  const notFound = (req: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const path = req.url.split('?')[0] ?? '';
    const allowed = [
      ...new Set(
        mountedRoutes(app)
          .filter((r) => patternOf(r.url).test(path))
          .map((r) => r.method),
      ),
    ];
    if (allowed.length > 0) {
      reply.header('Allow', allowed.join(', '));
      return sendProblem(
        reply,
        problem(req, 'method-not-allowed', `${req.method} is not supported on ${path}; allowed: ${allowed.join(', ')}.`),
      );
    }
    return sendProblem(reply, problem(req, 'not-found', `No route ${req.method} ${path}.`));
  };
  app.setNotFoundHandler(notFound);

  if (deps.metrics) registerRequestMetrics(app, deps.metrics);

  await mountRouteTable(app, {
    services,
    limiter: deps.limiter,
    lastUsedKeys: deps.lastUsedKeys,
    live: deps.live,
    vapid: deps.vapid,
    modules: deps.modules ?? [],
    readiness: deps.readiness ?? {},
    shedding,
    notFound,
  });
  return app;
}
