// The figures on-call alerts on (docs/deployment.md, "Metrics"), each produced by the work it
// describes: rings and how long they take to reach someone, the job backlog, webhook deliveries,
// live streams, group commits, idempotent replays and rate-limit refusals. And the dashboard and
// alert rules in deploy/ name only metrics that /metrics really has.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startWebhookWorld, createEndpoint, type WebhookWorld } from '../helpers/webhooks.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { openPage } from '../helpers/live.ts';
import { openSse } from '../helpers/sse-client.ts';
import { eventually } from '../helpers/eventually.ts';
import { storeName } from '../helpers/store.ts';

let w: WebhookWorld;
let t: TestApp;

before(async () => {
  // A short ring deadline: a page that does not confirm costs 300 ms, not 2 s.
  w = await startWebhookWorld({ METRICS_PORT: '0', RING_DEADLINE_MS: '300' });
  t = w.t;
});
after(() => w.close());

async function scrape(app: TestApp = t): Promise<string> {
  const address = app.app.metricsServer!.server.address() as { port: number };
  const res = await fetch(`http://127.0.0.1:${address.port}/metrics`);
  assert.equal(res.status, 200);
  return res.text();
}

/** The value of one sample (`name{labels}`), 0 when absent. */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

async function ticket(body: Record<string, unknown> = {}): Promise<any> {
  const r = await t.request('POST', '/v1/tickets', { body });
  assert.equal(r.status, 201, r.text);
  return r.body;
}

test("a ring confirmed 1.5 s after the ready: its latency by channel, and each channel's outcome once the ring completes", async () => {
  const tk = await ticket();
  const page = await openPage(t, tk.url, { ack: false });
  const ready = await t.request('POST', `/v1/tickets/${tk.id}/ready`);
  assert.equal(ready.status, 200);
  assert.equal(ready.body.channel_used, 'none', 'the page did not confirm within the deadline');
  const ring = await page.next('ring');
  w.clock.advance(1500);
  for (let i = 0; i < 2; i++) {
    // The page confirms (twice, as a reconnecting page may): one delivery, counted once.
    assert.equal((await t.request('POST', `${page.base}/ring-ack`, { key: null, body: { ring_id: ring.data.ring_id } })).status, 204);
  }
  page.close();
  const text = await scrape();
  assert.equal(sample(text, 'readybell_ring_delivery_seconds_count{channel="page"}'), 1);
  assert.equal(sample(text, 'readybell_ring_delivery_seconds_sum{channel="page"}'), 1.5);
  assert.equal(sample(text, 'readybell_ring_delivery_seconds_bucket{le="1",channel="page"}'), 0);
  assert.equal(sample(text, 'readybell_ring_delivery_seconds_bucket{le="2",channel="page"}'), 1);
  // The in-line attempt recorded the page as not reached before its confirmation came.
  assert.equal(sample(text, 'readybell_ring_channel_attempts_total{channel="page",outcome="not_delivered"}'), 1);
  assert.equal(sample(text, 'readybell_rings_total{channel_used="none",reason="ready"}'), 1);

  const confirmed = await ticket();
  const open = await openPage(t, confirmed.url);
  assert.equal((await t.request('POST', `/v1/tickets/${confirmed.id}/ready`)).body.channel_used, 'page');
  open.close();
  const after = await scrape();
  assert.equal(sample(after, 'readybell_ring_channel_attempts_total{channel="page",outcome="delivered"}'), 1);
  assert.equal(sample(after, 'readybell_rings_total{channel_used="page",reason="ready"}'), 1);
  assert.equal(sample(after, 'readybell_ring_delivery_seconds_count{channel="page"}'), 2);
});

test('the job backlog by kind, read at scrape time, and webhook delivery outcomes and lag', async () => {
  const tenant = await t.newTenant();
  const endpoint = await createEndpoint(t, { url: `${w.receiver.url}/hook`, enabled_events: ['ticket.created'] }, tenant.testKey);
  w.receiver.secrets = [endpoint.secret];
  const drained = async (): Promise<void> => {
    while ((await t.app.runner.runOnce()) > 0);
  };
  await drained();
  let text = await scrape();
  assert.equal(sample(text, 'readybell_jobs_due{kind="webhook"}'), 0, 'every known kind is reported, at 0 when idle');
  assert.equal(sample(text, 'readybell_jobs_due{kind="ring"}'), 0);

  // No worker runs here (the test drives the runner): two deliveries wait, the oldest for 90 s.
  for (let i = 0; i < 2; i++) {
    assert.equal((await t.request('POST', '/v1/tickets', { key: tenant.testKey, body: {} })).status, 201);
    w.clock.advance(45_000);
  }
  text = await scrape();
  assert.equal(sample(text, 'readybell_jobs_due{kind="webhook"}'), 2);
  assert.equal(sample(text, 'readybell_jobs_oldest_due_age_seconds{kind="webhook"}'), 90);

  const attempts = (outcome: string): number => sample(text, `readybell_webhook_attempts_total{outcome="${outcome}"}`);
  text = await scrape();
  const before = { success: attempts('success'), http: attempts('http_error') };
  w.receiver.answer = (_d, n) => (n % 2 === 1 ? { status: 200 } : { status: 503 });
  w.receiver.deliveries.length = 0;
  await t.app.runner.runOnce();
  text = await scrape();
  assert.equal(attempts('success') - before.success, 1);
  assert.equal(attempts('http_error') - before.http, 1);
  assert.equal(sample(text, 'readybell_webhook_delivery_lag_seconds_count'), 1, 'the lag of successful deliveries only');
  assert.ok([45, 90].includes(sample(text, 'readybell_webhook_delivery_lag_seconds_sum')), 'from the event to its delivery');
  assert.equal(sample(text, 'readybell_jobs_due{kind="webhook"}'), 0, 'the failed one is due again only later');
  assert.ok(text.includes('readybell_webhook_attempt_duration_seconds_count 2'));
  w.receiver.answer = () => ({ status: 200, body: 'ok' });
});

test('open live streams by kind: customer pages and /v1/stream listeners, counted until they close', async () => {
  const tk = await ticket();
  const page = await openPage(t, tk.url);
  const stream = await openSse(`${t.url}/v1/stream`, { authorization: `Bearer ${t.tenant.testKey}` });
  await stream.next('ready');
  let text = await scrape();
  assert.equal(sample(text, 'readybell_sse_connections{kind="page"}'), 1);
  assert.equal(sample(text, 'readybell_sse_connections{kind="stream"}'), 1);
  page.close();
  stream.close();
  await eventually(async () => {
    text = await scrape();
    return sample(text, 'readybell_sse_connections{kind="page"}') === 0 && sample(text, 'readybell_sse_connections{kind="stream"}') === 0;
  }, 'the closed streams to be counted closed');
});

test('group commits by store, and writes answered by an idempotent replay', async () => {
  const before = sample(await scrape(), `readybell_group_commit_batch_size_count{store="${storeName}"}`);
  // Without a key: on PostgreSQL this is the create that goes in batched statements.
  await Promise.all(Array.from({ length: 8 }, () => ticket()));
  const batches = sample(await scrape(), `readybell_group_commit_batch_size_count{store="${storeName}"}`) - before;
  assert.ok(batches >= 1 && batches <= 8, `8 creates went in 1 to 8 commits (${batches})`);

  const headers = { 'idempotency-key': 'order-77' };
  const first = await t.request('POST', '/v1/tickets', { body: {}, headers });
  const again = await t.request('POST', '/v1/tickets', { body: {}, headers });
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
  assert.equal(again.body.id, first.body.id);
  assert.equal(sample(await scrape(), 'readybell_idempotency_replays_total{route="/v1/tickets"}'), 1);
});

test('rate-limit refusals by policy', async () => {
  const limited = await startTestApp({ env: { METRICS_PORT: '0', RATE_LIMIT_READS_BURST: '2', RATE_LIMIT_READS_PER_SECOND: '0.001' } });
  try {
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await limited.request('GET', '/v1/tickets')).status);
    assert.deepEqual(statuses, [200, 200, 429]);
    const text = await scrape(limited);
    assert.equal(sample(text, 'readybell_rate_limit_refusals_total{policy="reads"}'), 1);
    assert.equal(sample(text, 'readybell_rate_limit_refusals_total{policy="writes"}'), 0);
  } finally {
    await limited.close();
  }
});

test("Node's process metrics keep their standard names, so community Node.js dashboards work", async () => {
  const text = await scrape();
  for (const name of [
    'process_cpu_seconds_total',
    'process_resident_memory_bytes',
    'nodejs_eventloop_lag_p99_seconds',
    'nodejs_heap_size_used_bytes',
    'nodejs_gc_duration_seconds',
  ]) {
    assert.match(text, new RegExp(`^# TYPE ${name} `, 'm'), name);
  }
  assert.doesNotMatch(text, /^readybell_(process|nodejs)_/m);
});

test('every metric the Grafana dashboard and the alert rules in deploy/ name exists at /metrics', async () => {
  const text = await scrape();
  const types = new Map([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => [m[1]!, m[2]!]));
  const exists = (name: string): boolean => {
    if (types.has(name)) return true;
    const base = name.replace(/_(bucket|sum|count)$/, '');
    return base !== name && types.get(base) === 'histogram';
  };
  const dashboard = JSON.parse(readFileSync(new URL('../../deploy/grafana-dashboard.json', import.meta.url), 'utf8')) as {
    panels: Array<{ targets?: Array<{ expr: string }> }>;
  };
  const exprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((target) => target.expr));
  const rules = readFileSync(new URL('../../deploy/prometheus-alerts.yaml', import.meta.url), 'utf8');
  const named = new Set([...`${exprs.join('\n')}\n${rules}`.matchAll(/\b(?:readybell|process|nodejs)_[a-z0-9_]+/g)].map((m) => m[0]));
  assert.ok(exprs.length >= 15 && named.size >= 15, `the dashboard and rules name the metrics (${named.size})`);
  for (const name of named) assert.ok(exists(name), `${name} is named in deploy/ but not served at /metrics`);
});
