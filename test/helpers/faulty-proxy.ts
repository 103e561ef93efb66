// A proxy between an example POS and a real readybell that makes the network fail the way it does
// in a shop, so the examples' retries are tested against real answers, not read: the first create
// of a ticket gets a 503 from "the load balancer", the second a 429 with Retry-After, the third
// reaches readybell (the ticket is made) but its answer never comes back, and the fourth gets
// readybell's replay. Every other request passes through untouched.
import { once } from 'node:events';
import http from 'node:http';

export type CreateAttempt = { at: number; idempotencyKey: string | undefined; status: number | null; replayed: boolean };

export type FaultyProxy = { url: string; creates: CreateAttempt[]; close(): Promise<void> };

const TOO_MANY_AFTER_SECONDS = 1;

function problem(res: http.ServerResponse, status: number, code: string, headers: Record<string, string> = {}): void {
  const body = JSON.stringify({ type: `/problems/${code}`, title: code, status, code, detail: 'injected by the test proxy' });
  res.writeHead(status, { 'content-type': 'application/problem+json', ...headers }).end(body);
}

export async function startFaultyProxy(target: string): Promise<FaultyProxy> {
  const upstream = new URL(target);
  const creates: CreateAttempt[] = [];

  /** Sends the request on to readybell; calls `answer` with its response (body not yet read). */
  const forward = (req: http.IncomingMessage, answer: (res: http.IncomingMessage) => void, failed: (err: Error) => void) => {
    const out = http.request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
      answer,
    );
    out.on('error', failed);
    req.pipe(out);
  };

  const server = http.createServer((req, res) => {
    const failed = (err: Error) => {
      if (!res.headersSent) problem(res, 502, 'bad-gateway', {});
      res.destroy(err);
    };
    if (req.method !== 'POST' || req.url !== '/v1/tickets') {
      forward(
        req,
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.rawHeaders);
          up.pipe(res);
        },
        failed,
      );
      return;
    }
    const key = req.headers['idempotency-key'];
    const attempt: CreateAttempt = { at: Date.now(), idempotencyKey: Array.isArray(key) ? key[0] : key, status: null, replayed: false };
    creates.push(attempt);
    if (creates.length === 1) {
      req.resume();
      problem(res, 503, 'unavailable');
      attempt.status = 503;
    } else if (creates.length === 2) {
      req.resume();
      problem(res, 429, 'rate-limited', { 'retry-after': String(TOO_MANY_AFTER_SECONDS) });
      attempt.status = 429;
    } else if (creates.length === 3) {
      // readybell acts; its answer is lost on the way back, as when a connection drops.
      forward(
        req,
        (up) => {
          attempt.status = up.statusCode ?? null;
          up.resume();
        },
        failed,
      );
    } else {
      forward(
        req,
        (up) => {
          attempt.status = up.statusCode ?? null;
          attempt.replayed = up.headers['idempotent-replayed'] === 'true';
          res.writeHead(up.statusCode ?? 502, up.rawHeaders);
          up.pipe(res);
        },
        failed,
      );
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    creates,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

export { TOO_MANY_AFTER_SECONDS };
