// Customer pages and display boards as the tests' browsers: an SSE stream plus, optionally, the
// confirmations the real page and board scripts send back.
import type { TestApp } from './app.ts';
import { openSse, type SseClient } from './sse-client.ts';

export const pathOf = (url: string): string => new URL(url).pathname;

export type LiveClient = SseClient & { base: string; snapshot: any };

/** Opens `<ticket url>/events`; resolves once the first snapshot arrived (the page is in presence). */
export async function openPage(
  t: TestApp,
  ticketUrl: string,
  opts: { ack?: boolean; headers?: Record<string, string> } = {},
): Promise<LiveClient> {
  const base = pathOf(ticketUrl);
  const sse = await openSse(`${t.url}${base}/events`, opts.headers);
  if (opts.ack !== false) {
    sse.on('ring', (e) => void t.request('POST', `${base}/ring-ack`, { key: null, body: { ring_id: e.data.ring_id } }));
  }
  const snapshot = (await sse.next('snapshot')).data;
  return Object.assign(sse, { base, snapshot });
}

/** Opens a board's stream; `spoke` is what the board answers to each call-out (null: never answers). */
export async function openBoard(t: TestApp, boardUrl: string, spoke: boolean | null = true): Promise<LiveClient> {
  const base = pathOf(boardUrl);
  const sse = await openSse(`${t.url}${base}/events`);
  if (spoke !== null) {
    sse.on('announce', (e) => void t.request('POST', `${base}/ack`, { key: null, body: { ring_id: e.data.ring_id, spoke } }));
  }
  const snapshot = (await sse.next('snapshot')).data;
  return Object.assign(sse, { base, snapshot });
}
