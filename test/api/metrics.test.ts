import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

test('/metrics exposes request and ring counters by route pattern, never by raw URL', async () => {
  const created = await t.request('POST', '/v1/tickets', { body: {} });
  await t.request('POST', `/v1/tickets/${created.body.id}/ready`);
  const res = await fetch(`${t.url}/metrics`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
  const text = await res.text();
  assert.match(text, /readybell_http_requests_total\{method="POST",route="\/v1\/tickets",status="201"\} 1/);
  assert.match(text, /readybell_http_requests_total\{method="POST",route="\/v1\/tickets\/:id\/ready",status="200"\} 1/);
  assert.match(text, /readybell_rings_total\{channel_used="none",reason="ready"\} 1/);
  assert.match(text, /readybell_rate_limit_failures_total 0/);
  assert.doesNotMatch(text, /tk_[0-9a-z]{26}/);
});
