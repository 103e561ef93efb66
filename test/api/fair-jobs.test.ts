// Fair work between tenants (decision 0048): one tenant points its 16 webhook endpoints at a tarpit
// (a server that accepts the connection and never answers, so every attempt holds its slot for the
// whole 10 s timeout) and makes 120 creates. Another tenant on the same node must not notice: its
// webhooks arrive about as fast as before the attack, and its reminder rings within a second of
// falling due. And an endpoint that fails is slowed for itself alone: one attempt at a time, every
// delivery still arriving on its schedule. The job runner runs in the background as in `serve`;
// the fake clock decides when reminders and retries fall due (the tarpit's timeouts are real).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { FakeClock } from '../helpers/clock.ts';
import { WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { createEndpoint, createTicket, deliveriesOf } from '../helpers/webhooks.ts';
import { eventually } from '../helpers/eventually.ts';

const REMINDER_S = 30;
const ENDPOINTS = 16;
const CREATES = 120;

let t: TestApp | undefined;
let receiver: WebhookReceiver | undefined;
let tarpit: net.Server | undefined;
let slow: SlowReceiver | undefined;
const held = new Set<net.Socket>();
const clock = new FakeClock();

before(async () => {
  tarpit = net.createServer((socket) => {
    held.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => held.delete(socket));
  });
  await new Promise<void>((resolve) => tarpit!.listen(0, '127.0.0.1', resolve));
  receiver = await new WebhookReceiver().start();
  receiver.nowSeconds = () => Math.floor(clock.now() / 1000);
  // The attacker's creates stay within a write burst (raised here so the 16 endpoints fit too).
  t = await startTestApp({ clock, workers: true, env: { WEBHOOK_ALLOW_PRIVATE: 'true', RATE_LIMIT_WRITES_BURST: '1000' } });
});

after(async () => {
  await slow?.close();
  for (const socket of held) socket.destroy();
  if (tarpit !== undefined) await new Promise<void>((resolve) => tarpit!.close(() => resolve()));
  await receiver?.close();
  await t?.close();
});

/** Real milliseconds from now until the receiver holds `n` deliveries (a bounded wait). */
async function msUntilDelivered(n: number, boundMs: number): Promise<number> {
  const started = performance.now();
  await receiver!.waitFor(n, boundMs).catch(() => {});
  return performance.now() - started;
}

/**
 * Moves the fake clock to the other tenant's reminder and answers the real milliseconds until the
 * ticket has rung `rings` times (a bounded wait: 15 s, past a tarpit's 10 s).
 */
async function msUntilReminder(key: string, ticketId: string, rings: number): Promise<number> {
  const app = t!;
  clock.advance(REMINDER_S * 1000);
  const due = performance.now();
  await eventually(
    async () => (await app.request('GET', `/v1/tickets/${ticketId}`, { key })).body.rings >= rings,
    'the reminder',
    15_000,
  ).catch(() => {});
  return performance.now() - due;
}

/** A receiver that holds every request until the test answers them all (`answer`), counting them. */
class SlowReceiver {
  readonly waiting: http.ServerResponse[] = [];
  received = 0;
  /** null: hold; a status: answer at once. */
  status: number | null = null;
  private readonly server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      this.received++;
      if (this.status === null) this.waiting.push(res);
      else res.writeHead(this.status).end();
    });
  });
  url = '';

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** Answers the held requests with `status`. */
  answer(status: number): void {
    for (const res of this.waiting.splice(0)) res.writeHead(status).end();
  }

  async close(): Promise<void> {
    this.answer(503);
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** The most requests the receiver holds at once over `ms` of real time (the poll is 250 ms). */
async function heldAtMost(r: SlowReceiver, ms: number): Promise<number> {
  let most = r.waiting.length;
  const until = Date.now() + ms;
  while (Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    most = Math.max(most, r.waiting.length);
  }
  return most;
}

test('an endpoint that fails gets one delivery at a time, and every delivery still arrives on its schedule', async () => {
  const app = t!;
  slow = await new SlowReceiver().start();
  const r = slow;
  const tenant = await app.newTenant();
  const endpoint = await createEndpoint(app, { url: `${r.url}/pos`, enabled_events: ['ticket.created'] }, tenant.testKey);
  for (let i = 0; i < 36; i++) await createTicket(app, tenant.testKey);
  // Answering, with nobody else waiting: its share (8) and the idle slots, all but the reserve (32 of 40).
  await eventually(() => r.waiting.length >= 32, 'deliveries in flight');
  assert.equal(await heldAtMost(r, 600), 32, 'the webhook lane less its reserve, never more');
  // The receiver fails them: the endpoint is failing, and the four left go one at a time.
  r.answer(500);
  await eventually(() => r.waiting.length >= 1, 'the next delivery');
  assert.equal(await heldAtMost(r, 600), 1, 'a failing endpoint holds one slot');
  // It recovers: everything is delivered, the 32 that failed at their retry (5 s later).
  r.status = 200;
  r.answer(200);
  await eventually(
    async () => (await deliveriesOf(app, endpoint.id, tenant.testKey)).filter((d) => d.status === 'succeeded').length === 4,
    'the four not failed',
    10_000,
  );
  const failed = (await deliveriesOf(app, endpoint.id, tenant.testKey)).filter((d) => d.status === 'pending');
  assert.equal(failed.length, 32, 'the failed ones wait for their retry');
  clock.advance(5_500);
  await eventually(
    async () => (await deliveriesOf(app, endpoint.id, tenant.testKey)).every((d) => d.status === 'succeeded'),
    'every delivery',
    10_000,
  );
});

test("one tenant's tarpitted endpoints delay neither another tenant's webhooks nor its reminders", async () => {
  const app = t!;
  const rx = receiver!;
  const other = await app.newTenant();
  const hog = await app.newTenant({ plan: 'pro' });
  const settings = await app.request('PATCH', '/v1/branch', {
    key: other.liveKey, // branch settings change with the live key only (decision 0052)
    body: { reminder_delay_seconds: REMINDER_S, reminder_count: 1 },
  });
  assert.equal(settings.status, 200, settings.text);
  const mine = await createEndpoint(app, { url: `${rx.url}/pos`, enabled_events: ['ticket.created', 'ticket.ready'] }, other.testKey);
  rx.secrets = [mine.secret];

  // Normal: the other tenant's webhook with nothing else going on.
  const first = await createTicket(app, other.testKey);
  const normalMs = await msUntilDelivered(1, 5_000);
  assert.equal(rx.deliveries.length, 1, 'delivered before the attack');
  // And its reminder: how late it rings on this machine now, with nothing else going on (a busy CI
  // machine is slower at both; an attacker's tarpits would make it about 10 s later).
  assert.equal((await app.request('POST', `/v1/tickets/${first}/ready`, { key: other.testKey })).status, 200);
  await msUntilDelivered(2, 5_000);
  const normalReminderMs = await msUntilReminder(other.testKey, first, 2);
  rx.deliveries.length = 0;

  // The attack: 16 endpoints that never answer, 120 creates.
  const tarpitUrl = `http://127.0.0.1:${(tarpit!.address() as AddressInfo).port}`;
  for (let i = 0; i < ENDPOINTS; i++) await createEndpoint(app, { url: `${tarpitUrl}/hook${i}` }, hog.testKey);
  for (let i = 0; i < CREATES; i += 10) await Promise.all(Array.from({ length: 10 }, () => createTicket(app, hog.testKey)));
  await eventually(() => held.size >= 8, 'the tarpit holding attempts');

  // Under attack: another create and a ready of the other tenant, each with its webhook.
  const id = await createTicket(app, other.testKey);
  const createdMs = await msUntilDelivered(1, normalMs + 5_000);
  const ready = await app.request('POST', `/v1/tickets/${id}/ready`, { key: other.testKey });
  assert.equal(ready.status, 200, ready.text);
  const readyMs = await msUntilDelivered(2, normalMs + 5_000);

  // The reminder falls due; it must ring within a second of what it takes with no attack.
  const lateMs = await msUntilReminder(other.testKey, id, 2);
  const rings = (await app.request('GET', `/v1/tickets/${id}`, { key: other.testKey })).body.rings;

  const figures = `normal webhook ${normalMs.toFixed(0)} ms, reminder ${normalReminderMs.toFixed(0)} ms after due; under attack: created ${createdMs.toFixed(0)} ms, ready ${readyMs.toFixed(0)} ms, reminder ${lateMs.toFixed(0)} ms after due (tarpit holding ${held.size})`;
  console.log(`# fair jobs: ${figures}`);
  assert.ok(held.size <= 32, `the attacker holds at most the webhook lane less its reserve (${figures})`);
  assert.equal(rx.deliveries.length, 2, `the other tenant's webhooks arrive (${figures})`);
  assert.ok(createdMs <= normalMs + 2_000 && readyMs <= normalMs + 2_000, `within 2 s of normal (${figures})`);
  assert.equal(rings, 2, `the reminder rang (${figures})`);
  assert.ok(lateMs <= normalReminderMs + 1_000, `within 1 s of normal (${figures})`);
});
