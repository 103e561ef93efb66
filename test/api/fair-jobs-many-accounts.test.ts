// Fair webhook lanes across many accounts (decision 0088): eight attacker accounts point their
// endpoints at tarpits (receivers that accept the connection and never answer, so each attempt
// holds its slot for the whole 10 s timeout) and make creates on both nodes of a PostgreSQL
// cluster. With a fixed share per account (8 of 40) five such accounts filled a node's webhook lane
// and another tenant's webhooks waited as long as the attack lasted; shares now shrink as more
// accounts are busy and an account running nothing on a node finds a slot there at once, so the
// victim's webhooks arrive within 2 s of normal on either node. The two nodes are two apps in this
// process on one database and one fake clock (the runners share nothing but the store, as nodes
// do); the tarpits' timeouts are real.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { FakeClock } from '../helpers/clock.ts';
import { WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { createEndpoint, createTicket } from '../helpers/webhooks.ts';
import { eventually } from '../helpers/eventually.ts';
import { onlyOnPostgres } from '../helpers/store.ts';

const ATTACKERS = 8;
const ENDPOINTS_EACH = 2;
const CREATES_EACH = 20;
const LANE_LESS_RESERVE = 32;

const clock = new FakeClock();
const nodes: TestApp[] = [];
const tarpits: net.Server[] = [];
const held = new Set<net.Socket>();
let receiver: WebhookReceiver | undefined;

async function startTarpit(): Promise<net.Server> {
  const server = net.createServer((socket) => {
    held.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => held.delete(socket));
  });
  tarpits.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

before(async () => {
  if (onlyOnPostgres.skip !== false) return;
  receiver = await new WebhookReceiver().start();
  receiver.nowSeconds = () => Math.floor(clock.now() / 1000);
  const env = { WEBHOOK_ALLOW_PRIVATE: 'true', RATE_LIMIT_WRITES_BURST: '1000' };
  const first = await startTestApp({ clock, workers: true, env });
  nodes.push(first);
  const shared = first.app.services.config.databaseUrl!;
  nodes.push(await startTestApp({ clock, workers: true, env, databaseUrl: () => shared }));
});

after(async () => {
  for (const socket of held) socket.destroy();
  await Promise.all(tarpits.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  await receiver?.close();
  for (const node of nodes) await node.close();
});

/** Real milliseconds from now until the receiver holds `n` deliveries (a bounded wait). */
async function msUntilDelivered(n: number, boundMs: number): Promise<number> {
  const started = performance.now();
  await receiver!.waitFor(n, boundMs).catch(() => {});
  return performance.now() - started;
}

test(
  "eight attacker accounts with tarpitted endpoints on two nodes keep another tenant's webhooks within 2 s of normal",
  onlyOnPostgres,
  async () => {
    const [a, b] = nodes as [TestApp, TestApp];
    const rx = receiver!;
    const victim = await a.newTenant();
    const mine = await createEndpoint(a, { url: `${rx.url}/pos`, enabled_events: ['ticket.created', 'ticket.ready'] }, victim.testKey);
    rx.secrets = [mine.secret];

    // Normal: the victim's webhook with nothing else going on.
    await createTicket(a, victim.testKey);
    const normalMs = await msUntilDelivered(1, 5_000);
    assert.equal(rx.deliveries.length, 1, 'delivered before the attack');

    // The attack: 8 accounts, each with its own tarpit behind 2 endpoints, creating on both nodes.
    const attackers = await Promise.all(Array.from({ length: ATTACKERS }, () => a.newTenant({ plan: 'pro' })));
    for (const attacker of attackers) {
      const url = `http://127.0.0.1:${((await startTarpit()).address() as AddressInfo).port}`;
      for (let i = 0; i < ENDPOINTS_EACH; i++) await createEndpoint(a, { url: `${url}/hook${i}` }, attacker.testKey);
    }
    for (let i = 0; i < CREATES_EACH; i += 2)
      await Promise.all(attackers.flatMap((attacker) => [createTicket(a, attacker.testKey), createTicket(b, attacker.testKey)]));
    // Both lanes full up to what the shares allow: more accounts than 40 / 8.
    await eventually(() => held.size >= LANE_LESS_RESERVE, 'the tarpits holding attempts', 10_000);

    // Under attack: a create on one node and a ready on the other, each with its webhook, twice.
    const late: number[] = [];
    for (const [creator, readier] of [
      [a, b],
      [b, a],
    ] as const) {
      const id = await createTicket(creator, victim.testKey);
      late.push((await msUntilDelivered(rx.deliveries.length + 1, normalMs + 5_000)) - normalMs);
      const ready = await readier.request('POST', `/v1/tickets/${id}/ready`, { key: victim.testKey });
      assert.equal(ready.status, 200, ready.text);
      late.push((await msUntilDelivered(rx.deliveries.length + 1, normalMs + 5_000)) - normalMs);
    }

    const figures = `normal ${normalMs.toFixed(0)} ms; under attack later by ${late.map((ms) => ms.toFixed(0)).join(', ')} ms (tarpits holding ${held.size})`;
    console.log(`# fair jobs, ${ATTACKERS} accounts: ${figures}`);
    assert.equal(rx.deliveries.length, 5, `every webhook of the victim arrived (${figures})`);
    assert.ok(
      late.every((ms) => ms <= 2_000),
      `within 2 s of normal (${figures})`,
    );
    assert.ok(held.size <= 2 * LANE_LESS_RESERVE, `the attackers never take a node's reserve (${figures})`);
  },
);
