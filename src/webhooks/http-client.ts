// Outbound HTTP to hosts named by others, webhook receivers and customers' push services alike:
// node:http(s) with keep-alive agents, a hard timeout, and an address check at connection time. The check runs inside the socket's `lookup`, on the very
// addresses the socket then connects to, so a name cannot resolve to a public address when it is
// checked and to 127.0.0.1 when it is used (DNS rebinding). Literal IPs skip `lookup` in Node, so
// they are checked before the request. Sockets are pooled per policy (strict / private allowed):
// a connection opened for a test endpoint allowed to reach a private address is never reused
// for an endpoint that may not.
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { LookupAddress } from 'node:dns';
import { isAddressAllowed } from '../domain/address-policy.ts';
import { bareHost } from './url-policy.ts';
import type { HostLookup } from '../core/host-lookup.ts';

export const RESPONSE_CAPTURE_BYTES = 1024;
// Reading past this many bytes of an answer is wasted work: the socket is dropped instead of
// drained for reuse.
const DRAIN_LIMIT_BYTES = 64 * 1024;

export type PostOutcome = {
  statusCode: number | null;
  retryAfter: string | null;
  /** The first RESPONSE_CAPTURE_BYTES of the answer, decoded as UTF-8. */
  body: string | null;
  durationMs: number;
  error: string | null;
};

class RefusedAddress extends Error {
  readonly code = 'EADDRREFUSED';
}

function guardedLookup(resolve: HostLookup, allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (all) => {
        const want = options.family === 4 || options.family === 'IPv4' ? 4 : options.family === 6 || options.family === 'IPv6' ? 6 : 0;
        const candidates = all.filter((a) => want === 0 || a.family === want);
        if (candidates.length === 0) {
          callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
          return;
        }
        // Every answer must pass, not just the first: the connection may try them all.
        for (const a of candidates) {
          const verdict = isAddressAllowed(a.address, { allowPrivate });
          if (!verdict.allowed) {
            callback(
              new RefusedAddress(`refused: ${hostname} resolves to ${verdict.reason.replace(/^\S+ is /, '')} (${a.address})`),
              '',
              0,
            );
            return;
          }
        }
        if (options.all)
          callback(
            null,
            candidates.map((a): LookupAddress => ({ address: a.address, family: a.family })),
          );
        else callback(null, candidates[0]!.address, candidates[0]!.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, '', 0),
    );
  };
}

/** Resolving the receiver's host and opening the connection: part of a send's limit, bounded on its own. */
export const CONNECT_TIMEOUT_MS = 3_000;

export class OutboundHttpClient {
  private readonly lookup: HostLookup;
  private readonly agents = new Map<string, http.Agent>();

  /** `lookup`: the service's resolver (Services.webhookLookup, for push services too; tests give their own to createApp). */
  constructor(lookup: HostLookup) {
    this.lookup = lookup;
  }

  private agent(protocol: string, allowPrivate: boolean): http.Agent {
    const name = `${protocol}${allowPrivate ? 'private' : 'strict'}`;
    let agent = this.agents.get(name);
    if (agent === undefined) {
      const opts = { keepAlive: true, keepAliveMsecs: 30_000, maxFreeSockets: 256, scheduling: 'lifo' as const };
      agent = protocol === 'https:' ? new https.Agent(opts) : new http.Agent(opts);
      this.agents.set(name, agent);
    }
    return agent;
  }

  post(
    target: string,
    headers: Record<string, string>,
    body: string | Uint8Array,
    opts: { allowPrivate: boolean; timeoutMs: number; connectTimeoutMs: number },
  ): Promise<PostOutcome> {
    const started = performance.now();
    const elapsed = (): number => performance.now() - started;
    const fail = (error: string): PostOutcome => ({ statusCode: null, retryAfter: null, body: null, durationMs: elapsed(), error });
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      return Promise.resolve(fail('the endpoint URL is not a valid URL'));
    }
    const host = bareHost(url);
    if (isIP(host) !== 0) {
      const verdict = isAddressAllowed(host, { allowPrivate: opts.allowPrivate });
      if (!verdict.allowed) return Promise.resolve(fail(`refused: ${verdict.reason}`));
    }
    const payload = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    const send = url.protocol === 'https:' ? https.request : http.request;
    return new Promise<PostOutcome>((resolve) => {
      let settled = false;
      let connectTimer: NodeJS.Timeout | undefined;
      const finish = (o: PostOutcome): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        clearTimeout(connectTimer);
        resolve(o);
      };
      const req = send(url, {
        method: 'POST',
        agent: this.agent(url.protocol, opts.allowPrivate),
        lookup: guardedLookup(this.lookup, opts.allowPrivate),
        headers: { ...headers, 'Content-Length': String(payload.length) },
      });
      const timer = setTimeout(() => {
        req.destroy();
        finish(fail(`timed out after ${Math.round(opts.timeoutMs / 1000)} s`));
      }, opts.timeoutMs);
      // A host that does not resolve or answer the connection in time gives up its slot early: a
      // receiver that is reachable at all connects in well under the bound (decision 0048).
      req.on('socket', (socket) => {
        if (!socket.connecting) return; // a kept-alive connection
        connectTimer = setTimeout(() => {
          req.destroy();
          finish(fail(`could not connect within ${opts.connectTimeoutMs / 1000} s`));
        }, opts.connectTimeoutMs);
        socket.once('connect', () => clearTimeout(connectTimer));
      });
      req.on('error', (err: NodeJS.ErrnoException) => {
        const message = err instanceof RefusedAddress ? err.message : `${err.code ?? 'error'}: ${err.message}`;
        finish(fail(message.slice(0, 500)));
      });
      req.on('response', (res) => {
        const kept: Buffer[] = [];
        let keptBytes = 0;
        let total = 0;
        const done = (): void => {
          const retryAfter = res.headers['retry-after'];
          finish({
            statusCode: res.statusCode ?? null,
            retryAfter: typeof retryAfter === 'string' ? retryAfter : null,
            body: keptBytes === 0 ? '' : Buffer.concat(kept).toString('utf8'),
            durationMs: elapsed(),
            error: null,
          });
        };
        res.on('data', (chunk: Buffer) => {
          if (keptBytes < RESPONSE_CAPTURE_BYTES) {
            const part = chunk.subarray(0, RESPONSE_CAPTURE_BYTES - keptBytes);
            kept.push(part);
            keptBytes += part.length;
          }
          total += chunk.length;
          if (total > DRAIN_LIMIT_BYTES) {
            res.destroy();
            done();
          }
        });
        res.on('end', done);
        res.on('error', done);
        res.on('close', done);
      });
      req.end(payload);
    });
  }

  close(): void {
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
  }
}
