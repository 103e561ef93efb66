// Three `readybell serve` processes on the machine's PostgreSQL and Redis, checked from outside
// over HTTP as a load balancer's clients would. Runs in the PostgreSQL + Redis stage of CI.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { once } from 'node:events';
import { startCluster, type Cluster, type ClusterNode } from '../helpers/cluster.ts';
import { openBoard, openPage } from '../helpers/live.ts';
import type { TestApp } from '../helpers/app.ts';
import { eventually } from '../helpers/eventually.ts';
import { needsCluster } from '../helpers/store.ts';

const enabled = process.env.TEST_DATABASE_URL !== undefined && process.env.TEST_REDIS_URL !== undefined;

{
  let cluster: Cluster;
  let branchId: string;
  const node = (i: number): ClusterNode => cluster.nodes[i]!;
  const asApp = (n: ClusterNode): TestApp => n as unknown as TestApp;
  const newKey = async (): Promise<string> => (await cluster.cli('keys', 'create', '--branch', branchId, '--mode', 'test')).key as string;

  before(async () => {
    if (!enabled) return;
    // Writes refill at one token per 100 s here, so the burst is exactly 120 however long the test takes.
    cluster = await startCluster(3, {
      RATE_LIMIT_WRITES_PER_SECOND: '0.01',
      JOB_LEASE_MS: '3000',
      JOB_POLL_MS: '100',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      SSE_HEARTBEAT_MS: '1000',
    });
    branchId = (await cluster.cli('demo')).branch.id;
  });
  after(async () => {
    if (enabled) await cluster.close();
  });

  test('a key gets one burst of 120 writes across all three nodes together', needsCluster, async () => {
    const key = await newKey();
    const answers = await Promise.all(Array.from({ length: 150 }, (_, i) => node(i % 3).request('POST', '/v1/tickets', { key, body: {} })));
    const count = (s: number) => answers.filter((a) => a.status === s).length;
    assert.deepEqual([count(201), count(429)], [120, 30]);
    assert.match(answers.find((a) => a.status === 429)!.headers.get('retry-after') ?? '', /^\d+$/);
  });

  test('ready on node 1 rings a page held by node 3 and calls out on a board held by node 2', needsCluster, async () => {
    const key = await newKey();
    const display = await node(1).request('POST', '/v1/displays', { key, body: { name: 'TV', voice: true } });
    assert.equal(display.status, 201);
    const board = await openBoard(asApp(node(1)), display.body.url, true);
    const ticket = (await node(0).request('POST', '/v1/tickets', { key, body: {} })).body;
    const page = await openPage(asApp(node(2)), ticket.url);
    try {
      const ready = await node(0).request('POST', `/v1/tickets/${ticket.id}/ready`, { key });
      assert.equal(ready.status, 200);
      assert.deepEqual([ready.body.rang, ready.body.channel_used, ready.body.call_out_loud], [true, 'page', true]);
      assert.equal((await page.next('ring')).data.reason, 'ready');
      assert.equal((await board.next('announce')).data.number, ticket.display_number);
    } finally {
      page.close();
      board.close();
    }
  });

  test('a simulated page and board opened through one node are rung through another (test helpers)', needsCluster, async () => {
    const key = await newKey();
    const display = (await node(1).request('POST', '/v1/displays', { key, body: { name: 'Simulated TV' } })).body;
    assert.equal((await node(1).request('POST', `/v1/test_helpers/displays/${display.id}/connect`, { key, body: {} })).status, 200);
    const ticket = (await node(0).request('POST', '/v1/tickets', { key, body: {} })).body;
    assert.equal(
      (await node(2).request('POST', `/v1/test_helpers/tickets/${ticket.id}/customer/open_page`, { key, body: {} })).status,
      200,
    );
    const ready = await node(0).request('POST', `/v1/tickets/${ticket.id}/ready`, { key });
    assert.deepEqual([ready.body.rang, ready.body.channel_used, ready.body.call_out_loud], [true, 'page', true]);
  });

  test('a key revoked with the CLI stops working on every node well before their cached copies expire', needsCluster, async () => {
    const created = await cluster.cli('keys', 'create', '--branch', branchId, '--mode', 'test');
    const key = created.key as string;
    for (let i = 0; i < 3; i++) assert.equal((await node(i).request('GET', '/v1/branch', { key })).status, 200);
    await cluster.cli('keys', 'revoke', created.id as string);
    // The nodes cache a verified key for 5 s; the CLI's message over Redis clears them long before.
    const statuses = async (): Promise<number[]> =>
      Promise.all([0, 1, 2].map(async (i) => (await node(i).request('GET', '/v1/branch', { key })).status));
    await eventually(async () => (await statuses()).every((s) => s === 401), 'the revoked key refused by all three nodes', 1000);
  });

  test('100 identical idempotent creates spread over the nodes make one ticket and one answer', needsCluster, async () => {
    const key = await newKey();
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        node(i % 3).request('POST', '/v1/tickets', {
          key,
          body: { external_ref: 'cluster-1' },
          headers: { 'idempotency-key': 'cluster-create-1' },
        }),
      ),
    );
    assert.deepEqual([...new Set(answers.map((a) => a.status))], [201]);
    assert.equal(new Set(answers.map((a) => a.text)).size, 1);
    const list = await node(1).request('GET', '/v1/tickets?external_ref=cluster-1', { key });
    assert.equal(list.body.data.length, 1);
  });

  test('webhook events reach the receiver exactly once per attempt while a node is killed mid-delivery', needsCluster, async () => {
    // The receiver holds every request open until told, so deliveries are in flight on every
    // node when node 2 dies. It counts every request it sees, per event.
    const seen = new Map<string, number>();
    const held: http.ServerResponse[] = [];
    let holding = true;
    const receiver = http.createServer((req, res) => {
      const id = String(req.headers['service-event-id']);
      req.resume();
      req.on('end', () => {
        seen.set(id, (seen.get(id) ?? 0) + 1);
        if (holding) held.push(res);
        else res.end('ok');
      });
    });
    receiver.listen(0, '127.0.0.1');
    await once(receiver, 'listening');
    try {
      const key = await newKey();
      const url = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hooks`;
      const endpoint = await node(0).request('POST', '/v1/webhook_endpoints', { key, body: { url, enabled_events: ['ticket.created'] } });
      assert.equal(endpoint.status, 201, endpoint.text);
      const created = await Promise.all(
        Array.from({ length: 30 }, (_, i) => node(i % 3).request('POST', '/v1/tickets', { key, body: {} })),
      );
      const ours = new Set(created.map((c) => c.body.id as string));
      const listed = (await node(0).request('GET', '/v1/events?type=ticket.created&limit=100', { key })).body.data as Array<{
        id: string;
        data: { object: { id: string } };
      }>;
      const events = listed.filter((e) => ours.has(e.data.object.id)).map((e) => e.id);
      assert.equal(events.length, created.length);
      await eventually(() => held.length === 30, '30 deliveries in flight', 15_000);

      await node(1).kill('SIGKILL');
      holding = false;
      for (const res of held) if (!res.destroyed) res.end('ok');
      // The killed node's claimed jobs come back when their lease (3 s) ends; nodes 1 and 3
      // deliver them and record every outcome.
      let deliveries: Array<{ event: string; status: string; attempt_count: number }> = [];
      await eventually(
        async () => {
          deliveries = (await node(2).request('GET', `/v1/webhook_endpoints/${endpoint.body.id}/deliveries?limit=100`, { key })).body.data;
          return deliveries.length === 30 && deliveries.every((d) => d.status === 'succeeded');
        },
        'every delivery recorded as succeeded',
        20_000,
      );
      // Exactly once per attempt: every request the receiver saw is an attempt some node logged,
      // except at most one per event: the attempt the killed node made and could never log.
      const logged = new Map(deliveries.map((d) => [d.event, d.attempt_count]));
      let unlogged = 0;
      for (const id of events) {
        const extra = (seen.get(id) ?? 0) - logged.get(id)!;
        assert.ok(extra === 0 || extra === 1, `event ${id}: ${seen.get(id)} requests seen vs ${logged.get(id)} attempts logged`);
        unlogged += extra;
      }
      assert.ok(unlogged <= held.length);
    } finally {
      receiver.closeAllConnections();
      receiver.close();
    }
  });

  test('a node told to stop drains its streams with a retry hint, and they reconnect elsewhere', needsCluster, async () => {
    const key = await newKey();
    const ticket = (await node(0).request('POST', '/v1/tickets', { key, body: {} })).body;
    const page = await openPage(asApp(node(2)), ticket.url);
    const started = Date.now();
    await node(2).kill('SIGTERM');
    await page.closed;
    assert.ok(Date.now() - started < 5000, `drained in ${Date.now() - started} ms`);
    assert.ok(page.retry !== null && page.retry <= 2000, `retry hint ${page.retry}`);
    assert.equal(node(2).child.exitCode, 0);
    // the same page reconnects to another node and is rung from there
    const again = await openPage(asApp(node(0)), ticket.url);
    const ready = await node(0).request('POST', `/v1/tickets/${ticket.id}/ready`, { key });
    assert.deepEqual([ready.body.rang, ready.body.channel_used], [true, 'page']);
    again.close();
  });
}
