// Prometheus metrics: on their own listener (METRICS_PORT, loopback by default), never on the
// public port, and labelled by route pattern so no customer token becomes a label.
// One engine: the metrics listener and its labels; the figures that touch the store are in metrics-oncall, on both.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
let metricsUrl: string;
before(async () => {
  t = await startTestApp({ env: { METRICS_PORT: '0' } });
  const address = t.app.metricsServer?.server.address();
  assert.ok(typeof address === 'object' && address !== null, 'the metrics listener is up');
  assert.equal(address.address, '127.0.0.1', 'loopback unless METRICS_HOST says otherwise');
  metricsUrl = `http://127.0.0.1:${address.port}`;
});
after(() => t.close());

test('/metrics exposes request and ring counters by route pattern, never by raw URL', async () => {
  const created = await t.request('POST', '/v1/tickets', { body: {} });
  await t.request('POST', `/v1/tickets/${created.body.id}/ready`);
  const res = await fetch(`${metricsUrl}/metrics`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
  const text = await res.text();
  assert.match(text, /readybell_http_requests_total\{method="POST",route="\/v1\/tickets",status="201"\} 1/);
  assert.match(text, /readybell_http_requests_total\{method="POST",route="\/v1\/tickets\/:id\/ready",status="200"\} 1/);
  assert.match(text, /readybell_rings_total\{channel_used="none",reason="ready"\} 1/);
  assert.match(text, /readybell_rate_limit_failures_total 0/);
  assert.doesNotMatch(text, /tk_[0-9a-z]{26}/);
});

test('the public port does not serve /metrics', async () => {
  for (const key of [null, t.tenant.testKey]) {
    const res = await t.request('GET', '/metrics', { key });
    assert.equal(res.status, 404);
    assert.equal(res.body.code, 'not-found');
    assert.doesNotMatch(res.text, /readybell_/);
  }
});

test('the metrics listener serves nothing else', async () => {
  const res = await fetch(`${metricsUrl}/v1/tickets`);
  assert.equal(res.status, 404);
  assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
  assert.equal((await res.json()).code, 'not-found');
  assert.equal((await fetch(`${metricsUrl}/healthz`)).status, 404);
});

test('without METRICS_PORT there is no metrics listener at all', async () => {
  const bare = await startTestApp();
  try {
    assert.equal(bare.app.metricsServer, null);
    assert.equal((await bare.request('GET', '/metrics', { key: null })).status, 404);
  } finally {
    await bare.close();
  }
});
