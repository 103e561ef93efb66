// What readybell reads of a request's HTTP framing, and the problem document it answers for the
// rest (decision 0015; issue #25). Node's HTTP parser accepts more than the service implements,
// and answers some requests itself with an empty body or none:
// - a missing Host (HTTP/1.1) or more than one: 400 bad-request (RFC 9112 §3.2);
// - a transfer coding other than chunked (`gzip, chunked`): 501 not-implemented (RFC 9112 §6.1).
//   Node undoes the chunked framing only, so the gzip bytes would reach the JSON parser;
// - a body with a Content-Encoding other than identity: 415 unsupported-media-type, with
//   `Accept-Encoding: identity` (RFC 9110 §15.5.16). Nothing inflates request bodies, and one that
//   happens to parse would be taken as sent;
// - an Expect other than 100-continue: 417 expectation-failed (Node's own 417 had no body);
// - CONNECT (Node closed the connection without a word) and methods Node's parser does not know:
//   501 not-implemented. Known methods a path does not have are the route table's 405.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { AppError } from '../../domain/errors.ts';
import { rawProblemResponse } from '../problems.ts';

// Node's own test for the one expectation it meets itself (lib/_http_server.js).
const CONTINUE = /(?:^|\W)100-continue(?:$|\W)/i;

const hostCount = (rawHeaders: string[]): number => {
  let n = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]!.toLowerCase() === 'host') n++;
  return n;
};

/** The answer ends the connection: what follows this request on it cannot be framed with certainty. */
const closing = (reply: FastifyReply, err: AppError): AppError => {
  reply.header('Connection', 'close');
  return err;
};

export function registerRequestFraming(app: FastifyInstance, newRequestId: () => string): void {
  const server = app.server as typeof app.server & { requireHostHeader?: boolean };
  // Node answers an HTTP/1.1 request without Host itself, with an empty 400. Its createServer
  // option requireHostHeader is kept on the server and read per request; turned off here (for
  // HTTP and HTTPS alike), the hook below gives that 400 as a problem document. HTTP/1.0 has no
  // Host requirement, and readybell needs none (links are built from PUBLIC_URL).
  server.requireHostHeader = false;
  // Without a listener Node answers any other expectation itself with an empty 417: the request
  // goes to Fastify instead, whose hook below refuses it with a problem document.
  server.on('checkExpectation', (req, res) => server.emit('request', req, res));
  // Without a listener Node destroys a CONNECT's socket in silence.
  server.on('connect', (_req: IncomingMessage, socket: Duplex) => {
    socket.end(rawProblemResponse(newRequestId(), 'CONNECT is not supported: readybell is not a proxy.', 'not-implemented'));
  });

  app.addHook('onRequest', async (req, reply) => {
    const { headers } = req;
    if (req.raw.httpVersion === '1.1' && headers.host === undefined)
      throw closing(reply, new AppError('bad-request', 'An HTTP/1.1 request must carry a Host header (RFC 9112, section 3.2).'));
    const hosts = hostCount(req.raw.rawHeaders);
    if (hosts > 1)
      throw closing(reply, new AppError('bad-request', `A request must carry one Host header, not ${hosts} (RFC 9112, section 3.2).`));

    const te = headers['transfer-encoding'];
    if (te !== undefined && te.trim().toLowerCase() !== 'chunked') {
      throw closing(
        reply,
        new AppError(
          'not-implemented',
          `Transfer-Encoding "${te}" is not supported: send the body with Content-Length, or with Transfer-Encoding: chunked alone.`,
        ),
      );
    }
    const ce = headers['content-encoding'];
    const hasBody = te !== undefined || (headers['content-length'] !== undefined && headers['content-length'] !== '0');
    if (ce !== undefined && hasBody && ce.trim().toLowerCase() !== 'identity') {
      reply.header('Accept-Encoding', 'identity');
      throw new AppError('unsupported-media-type', `Content-Encoding "${ce}" is not supported: send the body uncompressed.`);
    }
    const expect = headers.expect;
    if (expect !== undefined && !CONTINUE.test(expect))
      throw closing(reply, new AppError('expectation-failed', `Expect "${expect}" cannot be met: readybell meets only 100-continue.`));
  });
}
