// OpenTelemetry traces, as an operator turns them on: `readybell serve` with the standard OTEL_*
// variables pointing at a collector (here an OTLP/HTTP receiver in the test). A ready that comes
// with a W3C traceparent continues the caller's trace: the request, its store and Redis work, the
// ring and each channel it tries, and the webhook delivery it causes, whose request carries the
// trace on to the receiver. Request spans are named `{method} {route}`, and every log line the
// request writes carries its trace_id and span_id.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { startTestApp, type Res, type TestApp } from '../helpers/app.ts';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.ts';
import { OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.ts';
import { WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { openPage } from '../helpers/live.ts';
import { eventually } from '../helpers/eventually.ts';
import { storeName, TEST_REDIS_URL } from '../helpers/store.ts';
import { tracingWanted } from '../../src/config.ts';

const SERVER = 2;
const CLIENT = 3;

let t: TestApp;
let node: TestApp;
let proc: ServerProcess;
let otlp: OtlpReceiver;
let hooks: WebhookReceiver;
const logLines: Array<Record<string, unknown>> = [];

before(async () => {
  otlp = await new OtlpReceiver().start();
  hooks = await new WebhookReceiver().start();
  t = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
  proc = await startServerProcess(
    t,
    {
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '50',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      LOG_LEVEL: 'info',
    },
    (line) => logLines.push(JSON.parse(line)),
  );
  // The test's requests go to the traced process; `t` only seeded the store.
  node = { ...t, url: proc.url, request: requester(proc.url, t.tenant.testKey) };
  const endpoint = await node.request('POST', '/v1/webhook_endpoints', {
    body: { url: `${hooks.url}/hook`, enabled_events: ['ticket.ready'] },
  });
  assert.equal(endpoint.status, 201, endpoint.text);
  hooks.secrets = [endpoint.body.secret];
});

after(async () => {
  await proc?.kill('SIGTERM');
  await hooks?.close();
  await otlp?.close();
  await t?.close();
});

function requester(url: string, key: string): TestApp['request'] {
  return async (method, path, o = {}) => {
    const headers: Record<string, string> = { ...o.headers };
    const k = o.key === undefined ? key : o.key;
    if (k !== null) headers.authorization = `Bearer ${k}`;
    const body = o.body === undefined ? o.raw : JSON.stringify(o.body);
    if (o.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(url + path, { method, headers, body });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, text, body: parsed } satisfies Res;
  };
}

/** A request span: a server span named `{method} {route}`. */
const isRequest = (s: ReceivedSpan): boolean => s.kind === SERVER && /^[A-Z]+ \//.test(s.name);

const one = (spans: ReceivedSpan[], what: string, pick: (s: ReceivedSpan) => boolean): ReceivedSpan => {
  const found = spans.filter(pick);
  assert.equal(found.length, 1, `one ${what}, found ${found.length}: ${spans.map((s) => s.name).join(', ')}`);
  return found[0]!;
};

test("a ready continues the caller's trace through the store, Redis, the ring, its channels and the webhook it sends", async () => {
  const created = await node.request('POST', '/v1/tickets', { body: {} });
  assert.equal(created.status, 201, created.text);
  const ticket = created.body;
  // The customer's page is open and confirms the ring, so the ring has a channel to try.
  const page = await openPage(node, ticket.url);

  const traceId = randomBytes(16).toString('hex');
  const callerSpan = randomBytes(8).toString('hex');
  const ready = await node.request('POST', `/v1/tickets/${ticket.id}/ready`, {
    headers: { traceparent: `00-${traceId}-${callerSpan}-01` },
  });
  assert.equal(ready.status, 200, ready.text);
  assert.equal(ready.body.channel_used, 'page');
  page.close();

  // The webhook request carries the trace on: same trace, the delivery's own span as parent.
  await hooks.waitFor(1);
  const delivery = hooks.deliveries[0]!;
  assert.equal(delivery.event?.type, 'ticket.ready');
  const sent = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(String(delivery.headers.traceparent));
  assert.ok(sent, `a W3C traceparent on the webhook request (got ${delivery.headers.traceparent})`);
  assert.equal(sent[1], traceId);
  assert.equal(delivery.headers.baggage, undefined);

  await eventually(() => otlp.trace(traceId).some((s) => s.name === 'webhook.deliver'), 'the webhook delivery span to be exported');
  await eventually(() => otlp.trace(traceId).some(isRequest), 'the request span to be exported');
  // A parent ends after its children, so it may come in a later export batch: wait for it rather
  // than race the exporter. A span whose parent never arrives still fails below, by name.
  await eventually(() => {
    const exported = otlp.trace(traceId);
    const known = new Set(exported.map((s) => s.spanId));
    return exported.every((s) => isRequest(s) || known.has(s.parentSpanId));
  }, 'every span of the trace and its parent to be exported').catch(() => {});
  const spans = otlp.trace(traceId);
  assert.deepEqual(otlp.refused, []);
  assert.ok(
    spans.every((s) => s.service === 'readybell'),
    'the service is named readybell unless OTEL_SERVICE_NAME says otherwise',
  );

  // The request: a server span under the caller's, by route pattern (never the ticket's own path).
  const request = one(spans, 'request span', isRequest);
  assert.equal(request.name, 'POST /v1/tickets/:id/ready');
  assert.equal(request.kind, SERVER);
  assert.equal(request.parentSpanId, callerSpan);
  assert.equal(request.attributes['http.route'], '/v1/tickets/:id/ready');
  assert.equal(request.attributes['url.path'], '/v1/tickets/:id/ready');
  assert.equal(request.attributes['http.response.status_code'], 200);

  // One tree: every other span's parent is a span of this trace.
  const ids = new Set(spans.map((s) => s.spanId));
  for (const s of spans) if (s !== request) assert.ok(ids.has(s.parentSpanId), `${s.name} hangs off a span of the trace`);

  // The ring and the channel it tried, in-line under the request.
  const ring = one(spans, 'ring span', (s) => s.name === 'ring');
  assert.equal(ring.parentSpanId, request.spanId);
  assert.equal(ring.attributes['readybell.ring.reason'], 'ready');
  assert.equal(ring.attributes['readybell.ring.channel_used'], 'page');
  const pageAttempt = one(
    spans,
    'page channel span',
    (s) => s.name === 'ring.channel' && s.attributes['readybell.ring.channel'] === 'page',
  );
  assert.equal(pageAttempt.parentSpanId, ring.spanId);
  assert.equal(pageAttempt.attributes['readybell.ring.outcome'], 'delivered');

  // The store: the request's transactions, and on PostgreSQL their statements.
  const writes = spans.filter((s) => s.name === 'store.write');
  assert.ok(writes.length >= 2, 'the ready commits its change, then the ring outcome');
  assert.ok(writes.some((w) => w.parentSpanId === request.spanId));
  assert.equal(writes[0]!.attributes['db.system.name'], storeName === 'postgres' ? 'postgresql' : 'sqlite');
  if (storeName === 'postgres')
    assert.ok(
      spans.some((s) => s.attributes['db.system.name'] === 'postgresql' && s.name.startsWith('pg.query')),
      'pg statements',
    );

  // Redis, when nodes share one: command names only, never keys (a link's bucket holds its token).
  if (TEST_REDIS_URL !== null) {
    const redis = spans.filter((s) => s.attributes['db.system.name'] === 'redis');
    assert.ok(redis.length > 0, 'Redis commands of the request (rate limit, live update) have spans');
    for (const r of redis) assert.doesNotMatch(String(r.attributes['db.query.text'] ?? ''), /\s/);
  }

  // The webhook: a job continuing the trace that enqueued it, and the delivery under it.
  const job = one(spans, 'webhook job span', (s) => s.name === 'job webhook');
  const deliver = one(spans, 'webhook delivery span', (s) => s.name === 'webhook.deliver');
  assert.equal(deliver.parentSpanId, job.spanId);
  assert.equal(deliver.kind, CLIENT);
  assert.equal(deliver.spanId, sent[2], 'the receiver is given the delivery span as its parent');
  assert.equal(deliver.attributes['http.response.status_code'], 200);
  assert.equal(deliver.attributes['server.address'], new URL(hooks.url).host);

  // Every log line of the request, Fastify's own and those of the work inside it, names the trace
  // and the span it was written in, so an operator goes from the trace to its logs and back.
  const requestId = ready.headers.get('request-id');
  const lines = logLines.filter((l) => l.reqId === requestId);
  assert.deepEqual(
    lines.map((l) => l.msg),
    ['incoming request', 'request completed'],
  );
  for (const l of lines) {
    assert.equal(l.trace_id, traceId, String(l.msg));
    assert.equal(l.span_id, request.spanId, String(l.msg));
  }
  for (const l of logLines.filter((l) => l.trace_id === traceId)) assert.ok(ids.has(String(l.span_id)), String(l.msg));

  // Nothing a span says holds the ticket's link token.
  const token = new URL(ticket.url).pathname.split('/').pop()!;
  for (const s of otlp.spans) assert.doesNotMatch(JSON.stringify(s.attributes), new RegExp(token));
});

test('a request without a traceparent starts a trace of its own; health checks start none', async () => {
  const before = new Set(otlp.spans.map((s) => s.traceId));
  assert.equal((await node.request('GET', '/readyz', { key: null })).status, 200);
  const list = await node.request('GET', '/v1/tickets');
  assert.equal(list.status, 200);
  await eventually(() => otlp.spans.some((s) => !before.has(s.traceId) && s.name === 'GET /v1/tickets'), 'the list request span');
  const fresh = otlp.spans.filter((s) => !before.has(s.traceId) && isRequest(s));
  assert.equal(fresh.length, 1, `only the list request: ${fresh.map((s) => s.attributes['http.route']).join(', ')}`);
  assert.equal(fresh[0]!.parentSpanId, '');
});

test('tracing is off unless OTEL_* asks for it', () => {
  assert.equal(tracingWanted({}), false);
  assert.equal(tracingWanted({ OTEL_SERVICE_NAME: 'readybell' }), false, 'a name alone exports nothing');
  assert.equal(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }), true);
  assert.equal(tracingWanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }), true);
  assert.equal(tracingWanted({ OTEL_TRACES_EXPORTER: 'console' }), true);
  assert.equal(tracingWanted({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }), false);
  assert.equal(tracingWanted({ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }), false);
});
