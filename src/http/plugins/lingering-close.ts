// An answer that closes the connection before the request's body has arrived in full (413 for a
// body over the limit, most of all) is followed by a lingering close, as nginx does (decision
// 0040). Node's HTTP server otherwise closes the socket as soon as the answer is written; the
// client's next bytes then meet a closed socket, the kernel resets the connection, and a client
// that sends its whole body before it reads (Node's fetch, many SDKs) gets EPIPE or ECONNRESET
// instead of the problem document, and may retry what was refused. Instead the server ends its
// side (the answer is complete), reads and discards what the client still sends, and closes once
// the body has arrived, the client has closed its side, or a bound is reached.
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/** The longest a connection lingers after its answer, whatever the client sends. */
export const LINGER_MS = 10_000;
/** A client that sends nothing for this long is not finishing its body: close. */
export const LINGER_IDLE_MS = 2_000;
/** A body announced larger than this is not waited for: it is not a slip over the limit. */
export const LINGER_MAX_BYTES = 64 * 1024 * 1024;

function lingerOnClose(socket: Socket, req: IncomingMessage): void {
  // Node's HTTP server calls destroySoon once a Connection: close answer is written (after it has
  // set the request's remaining body to be read and discarded); this socket's own takes its place.
  socket.destroySoon = function lingeringClose(this: Socket): void {
    if (this.writable) this.end();
    const close = (): void => {
      clearTimeout(deadline);
      this.destroy();
    };
    const deadline = setTimeout(close, LINGER_MS);
    this.once('close', () => clearTimeout(deadline));
    if (req.complete) {
      close();
      return;
    }
    this.setTimeout(LINGER_IDLE_MS, close);
    req.once('end', close);
    this.once('end', close);
  };
}

export function registerLingeringClose(app: FastifyInstance): void {
  app.addHook('onSend', async (req, reply, payload) => {
    if (req.raw.complete || String(reply.getHeader('connection')).toLowerCase() !== 'close') return payload;
    const announced = Number(req.headers['content-length']);
    if (!(announced > LINGER_MAX_BYTES)) lingerOnClose(req.raw.socket, req.raw);
    return payload;
  });
}
