// A real HTTP client for server-sent events: reads the stream as a browser would and hands the
// parsed events to the test in order. `next` waits for the next event (of a type, optionally),
// so tests wait for what happens instead of sleeping.
import http from 'node:http';

export type SseEvent = { event: string; id: string | null; data: any; raw: string };

export type SseClient = {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** `retry:` hint, once seen */
  retry: number | null;
  /** The next unconsumed event of this type (others stay queued) that satisfies `match`. */
  next(event?: string, match?: (data: any) => boolean, timeoutMs?: number): Promise<SseEvent>;
  /** every event received so far (consumed or not) */
  all: SseEvent[];
  /** Calls `fn` for every later event of this type (besides queueing it for `next`). */
  on(event: string, fn: (e: SseEvent) => void): void;
  close(): void;
  closed: Promise<void>;
};

export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      const queue: SseEvent[] = [];
      const all: SseEvent[] = [];
      const waiters: Array<{
        event?: string;
        match: (data: any) => boolean;
        resolve: (e: SseEvent) => void;
        reject: (e: Error) => void;
        timer: NodeJS.Timeout;
      }> = [];
      const listeners: Array<{ event: string; fn: (e: SseEvent) => void }> = [];
      let buffer = '';
      let ended = false;
      let closedResolve!: () => void;
      const closed = new Promise<void>((r) => (closedResolve = r));
      const client: SseClient = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        retry: null,
        all,
        next(event, match = () => true, timeoutMs = 5000) {
          const i = queue.findIndex((e) => (event === undefined || e.event === event) && match(e.data));
          if (i !== -1) return Promise.resolve(queue.splice(i, 1)[0]!);
          if (ended) return Promise.reject(new Error(`stream ended before ${event ?? 'an event'}`));
          return new Promise((res2, rej) => {
            const w = {
              event,
              match,
              resolve: res2,
              reject: rej,
              timer: setTimeout(
                () =>
                  rej(
                    new Error(
                      `no matching ${event ?? 'event'} within ${timeoutMs} ms; got ${all.map((e) => `${e.event} ${JSON.stringify(e.data).slice(0, 80)}`).join(' | ')}`,
                    ),
                  ),
                timeoutMs,
              ),
            };
            waiters.push(w);
          });
        },
        on(event, fn) {
          listeners.push({ event, fn });
        },
        close() {
          req.destroy();
        },
        closed,
      };
      const deliver = (e: SseEvent): void => {
        all.push(e);
        queue.push(e);
        for (const l of listeners) if (l.event === e.event) l.fn(e);
        for (const w of [...waiters]) {
          const i = queue.findIndex((q) => (w.event === undefined || q.event === w.event) && w.match(q.data));
          if (i === -1) continue;
          const got = queue.splice(i, 1)[0]!;
          waiters.splice(waiters.indexOf(w), 1);
          clearTimeout(w.timer);
          w.resolve(got);
        }
      };
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          let event = 'message';
          let id: string | null = null;
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) continue;
            const colon = line.indexOf(':');
            const field = colon === -1 ? line : line.slice(0, colon);
            const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
            if (field === 'event') event = value;
            else if (field === 'id') id = value;
            else if (field === 'data') data.push(value);
            else if (field === 'retry') client.retry = Number(value);
          }
          if (data.length === 0) continue;
          const text = data.join('\n');
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            // not JSON: keep the text
          }
          deliver({ event, id, data: parsed, raw: block });
        }
      });
      const end = (): void => {
        ended = true;
        for (const w of waiters.splice(0)) {
          clearTimeout(w.timer);
          w.reject(new Error(`stream ended before ${w.event ?? 'an event'}`));
        }
        closedResolve();
      };
      res.on('end', end);
      res.on('close', end);
      res.on('error', end);
      resolve(client);
    });
    req.on('error', (err) => {
      if ((err as NodeJS.ErrnoException).code === 'ECONNRESET') return;
      reject(err);
    });
  });
}
