// One server-sent-events response. Every event carries an `id:`; a reconnecting client's
// Last-Event-ID is answered with a fresh snapshot (the hubs never replay), so ids only need to be
// unique, which the boot prefix gives across restarts. Pings are events without an id, so the
// page's script can see them (comments are invisible to EventSource) and notice a dead link.
import type { ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';

/** A client that stops reading is dropped instead of buffering without bound; it reconnects and resyncs. */
const MAX_BUFFERED_BYTES = 256 * 1024;
const BOOT = randomBytes(3).toString('hex');
let seq = 0;

export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-store',
  // nginx and similar proxies buffer responses unless told not to; a buffered ring is a late ring.
  'x-accel-buffering': 'no',
} as const;

export class SseStream {
  readonly res: ServerResponse;
  closed = false;
  /** Pings wait for the first real event, so a stream always opens with its snapshot. */
  private started = false;
  private closeHandlers: Array<() => void> = [];

  constructor(res: ServerResponse) {
    this.res = res;
    res.on('close', () => this.finish());
  }

  send(event: string, data: unknown): void {
    this.started = true;
    this.write(`id: ${BOOT}-${(++seq).toString(36)}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  ping(): void {
    if (!this.started) return;
    this.write('event: ping\ndata: {}\n\n');
  }

  onClose(fn: () => void): void {
    if (this.closed) fn();
    else this.closeHandlers.push(fn);
  }

  close(): void {
    if (this.closed) return;
    this.res.end();
    this.finish();
  }

  private write(chunk: string): void {
    if (this.closed) return;
    if (this.res.writableLength > MAX_BUFFERED_BYTES) {
      this.res.destroy();
      this.finish();
      return;
    }
    this.res.write(chunk);
  }

  private finish(): void {
    if (this.closed && this.closeHandlers.length === 0) return;
    this.closed = true;
    const handlers = this.closeHandlers;
    this.closeHandlers = [];
    for (const h of handlers) h();
  }
}

/**
 * What a live connection writes to: an SSE response, or a client readybell plays itself in test
 * mode (simulated-clients.ts).
 */
export type LiveStream = Pick<SseStream, 'closed' | 'send' | 'ping' | 'onClose' | 'close'>;

/** Starts the stream: status, headers, and the reconnection delay the browser should use. */
export function startSse(res: ServerResponse, headers: Record<string, string>, retryMs: number): SseStream {
  res.writeHead(200, { ...SSE_HEADERS, ...headers });
  res.write(`retry: ${retryMs}\n\n`);
  return new SseStream(res);
}
