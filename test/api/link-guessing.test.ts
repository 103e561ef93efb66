// Guessing customer and board links (PRODUCT.md §8, decision 0044): every link that matches
// nothing counts against the address it came from, well-formed or not, so an address that guesses
// is soon answered 429 for its guesses, while real links keep opening, from that address too (the
// board and the customers on a shop's Wi-Fi share the guesser's public address).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { FakeClock } from '../helpers/clock.ts';
import { pathOf } from '../helpers/live.ts';
import { ticketToken } from '../../src/domain/ticket-token.ts';

let t: TestApp;
// A still clock: the buckets do not refill behind the test's back.
const clock = new FakeClock();
let addresses = 0;
before(async () => {
  // Loopback is the proxy, so each test can speak from addresses of its own.
  t = await startTestApp({ clock, env: { TRUST_PROXY: '127.0.0.1' } });
});
after(() => t.close());

const newAddress = (): string => `203.0.113.${++addresses}`;
const open = (path: string, address: string, headers: Record<string, string> = {}) =>
  fetch(t.url + path, { headers: { 'x-forwarded-for': address, ...headers } }).then(async (r) => ({
    status: r.status,
    retryAfter: r.headers.get('retry-after'),
    text: await r.text(),
  }));

async function statusesOf(paths: string[], address: string): Promise<number[]> {
  const out: number[] = [];
  for (const p of paths) out.push((await open(p, address)).status);
  return out;
}

/** Statuses of `n` requests: all 404 until the address's 30 unknown links are used, then 429. */
const guessedThenThrottled = (n: number): number[] => Array.from({ length: n }, (_, i) => (i < 30 ? 404 : 429));

test('well-formed unknown customer links are throttled per address; a real link still opens, from that address too', async () => {
  const tk = (await t.request('POST', '/v1/tickets', { body: {} })).body;
  const guesser = newAddress();
  const guesses = Array.from({ length: 100 }, () => `/t/${ticketToken(clock.now())}`);
  assert.deepEqual(await statusesOf(guesses, guesser), guessedThenThrottled(100));

  const refused = await open(`/t/${ticketToken(clock.now())}/events`, guesser, { accept: 'text/event-stream' });
  assert.equal(refused.status, 429);
  assert.ok(Number(refused.retryAfter) >= 1);
  assert.equal(JSON.parse(refused.text).code, 'rate-limited');
  // The customer on the guesser's Wi-Fi: the page, its live stream and its buttons answer.
  assert.equal((await open(pathOf(tk.url), guesser)).status, 200);
  const stream = await fetch(`${t.url}${pathOf(tk.url)}/events`, { headers: { 'x-forwarded-for': guesser, accept: 'text/event-stream' } });
  assert.equal(stream.status, 200);
  await stream.body?.cancel();
  assert.equal((await open(pathOf(tk.url), newAddress())).status, 200);
  // ... and the guesses are still refused.
  assert.equal((await open(`/t/${ticketToken(clock.now())}`, guesser)).status, 429);

  // The address's bucket refills: one more guess after two seconds.
  clock.advance(2000);
  assert.deepEqual(await statusesOf([`/t/${ticketToken(clock.now())}`, `/t/${ticketToken(clock.now())}`], guesser), [404, 429]);
});

test('well-formed unknown board links are throttled per address; the real board still opens, from that address too', async () => {
  const board = (await t.request('POST', '/v1/displays', { body: {} })).body;
  const guesser = newAddress();
  const guesses = Array.from({ length: 100 }, () => `/board/${randomBytes(24).toString('base64url')}`);
  assert.deepEqual(await statusesOf(guesses, guesser), guessedThenThrottled(100));
  assert.equal((await open(pathOf(board.url), guesser)).status, 200);
  assert.equal((await open(pathOf(board.url), newAddress())).status, 200);
  assert.equal((await open(`/board/${randomBytes(24).toString('base64url')}`, guesser)).status, 429);
});

test('IPv6 guesses count per /64: rotating the low 64 bits buys no more guesses', async () => {
  const guesses = Array.from({ length: 40 }, () => `/t/${ticketToken(clock.now())}`);
  const statuses: number[] = [];
  for (const [i, p] of guesses.entries()) statuses.push((await open(p, `2001:db8:25:1::${(i + 1).toString(16)}`)).status);
  assert.deepEqual(statuses, guessedThenThrottled(40));
  const tk = (await t.request('POST', '/v1/tickets', { body: {} })).body;
  assert.equal((await open(pathOf(tk.url), '2001:db8:25:1::ffff')).status, 200);
  assert.equal((await open(`/t/${ticketToken(clock.now())}`, '2001:db8:25:2::1')).status, 404);
});

test('malformed and well-formed guesses share one count per address', async () => {
  const guesser = newAddress();
  const paths = Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? `/t/not-a-token-${i}` : `/t/${ticketToken(clock.now())}`));
  assert.deepEqual(await statusesOf(paths, guesser), guessedThenThrottled(40));
});

test('opening real links from one address many times is not guessing', async () => {
  const address = newAddress();
  const links: string[] = [];
  for (let i = 0; i < 40; i++) links.push(pathOf((await t.request('POST', '/v1/tickets', { body: {} })).body.url));
  assert.deepEqual(await statusesOf(links, address), Array(40).fill(200));
});
