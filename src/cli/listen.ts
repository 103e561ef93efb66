// `readybell listen --forward-to URL`: a hosted readybell's events forwarded to a receiver on this
// machine, signed exactly as webhook deliveries are (both schemes), one line per event, like
// `stripe listen`: an integrator receives webhooks on a laptop without a tunnel.
//
// The events API is the record (every event, kept 30 days); /v1/stream only says when to read it.
// Each read asks for the events created since the newest one seen, less a margin for transactions
// that commit a little after their event's time, and skips the ids already forwarded. So a dropped
// connection loses nothing and doubles nothing: the next read, after reconnecting, resumes there.
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { EventSource } from 'eventsource';
import { classifyAddress } from '../domain/address-policy.ts';
import { signedHeaders } from '../webhooks/signature.ts';
import { isLocalhostName } from '../webhooks/url-policy.ts';
import { PING_EVENT_TYPE, TICKET_EVENT_TYPES } from '../contract/event-types.ts';

export const LISTEN_USAGE = `readybell listen — forward a readybell's events to a receiver on this machine

  readybell listen --forward-to http://localhost:3000/webhooks [--events ticket.ready,ticket.rung]
                   [--api-key rk_test_…] [--url https://pickup.example.com]

  --forward-to URL   where each event is POSTed, signed like a webhook delivery
  --api-key KEY      the branch's key (default: READYBELL_API_KEY); its mode picks test or live events
  --url URL          the readybell service (default: READYBELL_URL); https, or http to this machine only
  --events TYPES     only these event types (comma-separated; default: all)

Prints the signing secret (the same on every run with the same key), then one line per event with
your receiver's answer. Each event is forwarded once; events made before listen starts are not.`;

/** How far back each read looks: an event committed this long after its time is still forwarded. */
const LATE_COMMIT_MARGIN_MS = 30_000;
/** Reads also happen without a stream notice: some events (a `ping`) are not announced on it. */
const POLL_MS = 5_000;
const RECONNECT_MS = 3_000;
/** As real deliveries: a receiver that takes longer is a failed attempt. */
const FORWARD_TIMEOUT_MS = 10_000;
const PAGE = 100;

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
const USER_AGENT = `readybell-listen/${VERSION}`;
const ALPHANUMERIC = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

type Event = { id: string; type: string; created_at: string };
type Output = { out(line: string): void; err(line: string): void };

export class UsageError extends Error {}

class ApiError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/**
 * The secret `listen` signs with: derived from the API key, so it is the same on every run (a
 * receiver's configuration keeps working) and unknown to anyone without the key. 44 letters and
 * digits, like an endpoint's secret, so it is valid for both signature schemes.
 */
export function listenSecret(apiKey: string): string {
  let n = BigInt(`0x${createHmac('sha256', apiKey).update('readybell listen signing secret').digest('hex')}`);
  let out = '';
  for (let i = 0; i < 44; i++) {
    out = ALPHANUMERIC[Number(n % 62n)] + out;
    n /= 62n;
  }
  return `whsec_${out}`;
}

export type ListenOptions = { forwardTo: URL; apiKey: string; baseUrl: string; types: string[] };

export function parseListenArgs(argv: string[], env: Record<string, string | undefined>): ListenOptions | 'help' {
  const { values } = parseArgs({
    args: argv,
    options: {
      'forward-to': { type: 'string' },
      'api-key': { type: 'string' },
      url: { type: 'string' },
      events: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return 'help';
  const forwardTo = values['forward-to'];
  const apiKey = values['api-key'] ?? env.READYBELL_API_KEY ?? '';
  const url = values.url ?? env.READYBELL_URL ?? '';
  if (forwardTo === undefined) throw new UsageError('--forward-to is required.');
  const target = URL.canParse(forwardTo) ? new URL(forwardTo) : null;
  if (target === null || (target.protocol !== 'http:' && target.protocol !== 'https:'))
    throw new UsageError(`--forward-to must be an http(s) URL, got ${JSON.stringify(forwardTo)}.`);
  if (!/^rk_(test|live)_\S+$/.test(apiKey))
    throw new UsageError('An API key (rk_test_… or rk_live_…) is required: --api-key or READYBELL_API_KEY.');
  const base = URL.canParse(url) ? new URL(url) : null;
  if (base === null || (base.protocol !== 'http:' && base.protocol !== 'https:'))
    throw new UsageError("The service's URL is required: --url or READYBELL_URL (e.g. https://pickup.example.com).");
  // The API key goes with every request: in clear over plain http, to anyone on the way.
  if (base.protocol === 'http:' && !isLoopback(base.hostname))
    throw new UsageError(
      `--url ${base.origin} is plain http, which would send the API key in clear across the network. ` +
        'Use the https URL of the service; plain http is accepted only for this machine (localhost, 127.0.0.1, [::1]).',
    );
  const types = (values.events ?? '')
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  const known: readonly string[] = [...TICKET_EVENT_TYPES, PING_EVENT_TYPE];
  const unknown = types.filter((t) => !known.includes(t));
  // A typo would filter out every event in silence.
  if (unknown.length > 0) throw new UsageError(`Unknown event type ${unknown.join(', ')} in --events; known: ${known.join(', ')}.`);
  return { forwardTo: target, apiKey, baseUrl: base.href.replace(/\/+$/, ''), types };
}

/** This machine: localhost and its subdomains (RFC 6761), 127.0.0.0/8 and ::1. */
function isLoopback(hostname: string): boolean {
  return isLocalhostName(hostname) || classifyAddress(hostname) === 'loopback';
}

const at = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').slice(0, 19);

export class Listener {
  readonly secret: string;
  /** Forwarded (or, at start, already there) ids, with their time, for as long as a read may return them. */
  private readonly seen = new Map<string, number>();
  /** The newest event time seen: reads start LATE_COMMIT_MARGIN_MS before it. */
  private newest: number | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private connected = true;
  private stream: EventSource | null = null;
  private poll: NodeJS.Timeout | undefined;
  private reconnect: NodeJS.Timeout | undefined;
  private stopped = false;
  private finish: (code: number) => void = () => {};
  readonly done: Promise<number>;
  private readonly o: ListenOptions;
  private readonly io: Output;

  constructor(o: ListenOptions, io: Output) {
    this.o = o;
    this.io = io;
    this.secret = listenSecret(o.apiKey);
    this.done = new Promise((resolve) => (this.finish = resolve));
  }

  private async api(path: string): Promise<unknown> {
    const res = await fetch(`${this.o.baseUrl}${path}`, {
      headers: { authorization: `Bearer ${this.o.apiKey}`, accept: 'application/json', 'user-agent': USER_AGENT },
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    if (!res.ok) {
      let detail = text.slice(0, 300);
      try {
        const problem = JSON.parse(text) as { detail?: string; title?: string };
        detail = problem.detail ?? problem.title ?? detail;
      } catch {
        // not a problem document: keep the text
      }
      throw new ApiError(res.status, `${res.status} from ${path.split('?')[0]}: ${detail}`);
    }
    return JSON.parse(text);
  }

  /** Every event in the read window, newest first (the API's order), across pages. */
  private async readWindow(): Promise<Event[]> {
    const query = new URLSearchParams({ limit: String(PAGE) });
    if (this.o.types.length > 0) query.set('type', this.o.types.join(','));
    if (this.newest !== null) query.set('created_after', new Date(this.newest - LATE_COMMIT_MARGIN_MS).toISOString());
    const events: Event[] = [];
    for (;;) {
      const page = (await this.api(`/v1/events?${query}`)) as { data: Event[]; has_more: boolean };
      events.push(...page.data);
      if (!page.has_more || page.data.length === 0) return events;
      query.set('starting_after', page.data.at(-1)!.id);
    }
  }

  /** One read: forwards what it has not seen, oldest first (or, at start, only notes what is there). */
  private async sync(forward: boolean): Promise<void> {
    const fresh = (await this.readWindow()).filter((e) => !this.seen.has(e.id)).reverse();
    if (!this.connected) {
      this.connected = true;
      this.io.out(`${at(Date.now())}  reconnected to ${this.o.baseUrl}; caught up from the last event seen`);
    }
    for (const event of fresh) {
      if (this.stopped) return;
      if (forward) await this.forward(event);
      const time = Date.parse(event.created_at);
      this.seen.set(event.id, time);
      if (this.newest === null || time > this.newest) this.newest = time;
    }
    if (this.newest !== null) {
      const oldest = this.newest - LATE_COMMIT_MARGIN_MS;
      for (const [id, time] of this.seen) if (time < oldest) this.seen.delete(id);
    }
  }

  private async forward(event: Event): Promise<void> {
    const body = JSON.stringify(event);
    const headers = {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      ...signedHeaders([this.secret], event.id, Math.floor(Date.now() / 1000), body),
      'Service-Event-Id': event.id,
      'Service-Event-Type': event.type,
    };
    const started = Date.now();
    let result: string;
    try {
      const res = await fetch(this.o.forwardTo, {
        method: 'POST',
        headers,
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
      });
      await res.arrayBuffer();
      result = `[${res.status}]`;
    } catch (err) {
      const e = err as Error & { cause?: { code?: string; message?: string } };
      result =
        e.name === 'TimeoutError'
          ? `[timed out after ${FORWARD_TIMEOUT_MS / 1000} s]`
          : `[failed: ${e.cause?.code ?? e.cause?.message ?? e.message}]`;
    }
    this.io.out(
      `${at(started)}  ${event.type.padEnd(30)} ${event.id}  ${result} POST ${this.o.forwardTo.href} (${Date.now() - started} ms)`,
    );
  }

  /** Coalesces requests: one read at a time, and one more after it if anything asked meanwhile. */
  private requestSync(): void {
    if (this.stopped) return;
    if (this.running !== null) {
      this.again = true;
      return;
    }
    this.running = this.sync(true)
      .catch((err: unknown) => this.failed(err))
      .finally(() => {
        this.running = null;
        if (this.again) {
          this.again = false;
          this.requestSync();
        }
      });
  }

  /** A read failed: a refused key ends listen; anything else (network, 429, 5xx) is retried. */
  private failed(err: unknown): void {
    if (err instanceof ApiError && (err.status === 401 || err.status === 403)) {
      this.fatal(err.message);
      return;
    }
    const reason = err instanceof ApiError ? err.message : ((err as { cause?: Error }).cause ?? (err as Error)).message;
    this.lost(`cannot read the events from ${this.o.baseUrl} (${reason}); retrying`);
  }

  /** Said once per outage; the next successful read says it is over. */
  private lost(what: string): void {
    if (!this.connected || this.stopped) return;
    this.connected = false;
    this.io.err(`${at(Date.now())}  ${what}`);
  }

  private fatal(message: string): void {
    this.io.err(`error: ${message}`);
    this.stop(1);
  }

  private connectStream(): void {
    if (this.stopped) return;
    const key = this.o.apiKey;
    const stream = new EventSource(`${this.o.baseUrl}/v1/stream`, {
      fetch: (url, init) => fetch(url, { ...init, headers: { ...init.headers, authorization: `Bearer ${key}`, 'user-agent': USER_AGENT } }),
    });
    this.stream = stream;
    // `ready` opens every connection, a reconnection included: read what happened meanwhile.
    stream.addEventListener('ready', () => this.requestSync());
    stream.addEventListener('message', () => this.requestSync());
    stream.addEventListener('error', (e) => {
      if (e.code === 401 || e.code === 403) return this.fatal(`the stream refused the key (${e.code})`);
      this.lost(`lost the connection to ${this.o.baseUrl} (${e.message ?? 'the stream closed'}); reconnecting`);
      // EventSource retries network errors itself, but gives up on an answer that is not 200
      // (a proxy's 502 during a deploy): start a new one after a pause.
      if (stream.readyState === EventSource.CLOSED && !this.stopped) {
        this.reconnect = setTimeout(() => this.connectStream(), RECONNECT_MS);
      }
    });
  }

  /** Checks the key, notes the events already there (they are not forwarded), then follows. */
  async start(): Promise<void> {
    const branch = (await this.api('/v1/branch')) as { id: string; name: string };
    const newest = (await this.api(
      `/v1/events?limit=1${this.o.types.length > 0 ? `&type=${encodeURIComponent(this.o.types.join(','))}` : ''}`,
    )) as { data: Event[] };
    if (newest.data[0] !== undefined) {
      this.newest = Date.parse(newest.data[0].created_at);
      await this.sync(false);
    }
    const mode = this.o.apiKey.startsWith('rk_live_') ? 'live' : 'test';
    this.io.out(`Ready! Forwarding ${mode} events of branch ${JSON.stringify(branch.name)} (${branch.id}) to ${this.o.forwardTo.href}`);
    this.io.out(`Your webhook signing secret is ${this.secret} (^C to quit)`);
    this.connectStream();
    this.poll = setInterval(() => this.requestSync(), POLL_MS);
  }

  stop(code = 0): void {
    if (this.stopped) return;
    this.stopped = true;
    this.stream?.close();
    clearInterval(this.poll);
    clearTimeout(this.reconnect);
    this.finish(code);
  }
}

/** The `listen` command: runs until ^C (exit 0) or until the key is refused (exit 1). */
export async function runListen(argv: string[]): Promise<number> {
  const io: Output = { out: (line) => process.stdout.write(`${line}\n`), err: (line) => process.stderr.write(`${line}\n`) };
  let options: ListenOptions | 'help';
  try {
    options = parseListenArgs(argv, process.env);
  } catch (err) {
    if (!(err instanceof UsageError) && (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') !== true) throw err;
    io.err(`${(err as Error).message}\n\n${LISTEN_USAGE}`);
    return 2;
  }
  if (options === 'help') {
    io.out(LISTEN_USAGE);
    return 0;
  }
  const listener = new Listener(options, io);
  const onSignal = (): void => listener.stop(0);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    await listener.start();
  } catch (err) {
    listener.stop(1);
    const reason =
      err instanceof ApiError
        ? err.message
        : `cannot reach ${options.baseUrl}: ${((err as { cause?: Error }).cause ?? (err as Error)).message}`;
    io.err(`error: ${reason}`);
    return 1;
  }
  const code = await listener.done;
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  return code;
}
