// How many of src's files a create and a ready run through, measured rather than read: V8's precise
// coverage (call counts) is reset just before one request and taken once its work is done, and
// every file under src/ with a function called in between is listed, in the layer order. Issue
// #26 asked for shorter walks; this is how docs/architecture.md's counts are checked.
//
//   node bench/walk-files.ts            # counts and files of each walk, on the embedded store
//   node bench/walk-files.ts --counts   # the counts only
//
// Each walk is measured twice: the request alone (no job runner: from the request to its answer,
// the ready's ring included, since the ready answers with the ring's result), and with the work
// its commit leaves (the runner delivers the webhooks). TEST_DATABASE_URL runs it on PostgreSQL.
// What every request runs (a create refused by validation: the plugins and hooks) is measured
// too, and each walk is also listed less those files: the route's own walk, as the doc counts it.
//
// The scene is a busy one, so that every part of each walk runs: a webhook endpoint that wants
// every event (the fan-out and a delivery), and for the ready a customer page that is open and
// confirms the ring (the ringer reaches it). A first create and ready warm everything up: code
// that runs once per process (compiling a route, preparing a statement) is not counted.
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestApp, type TestApp } from '../test/helpers/app.ts';
import { openPage, type LiveClient } from '../test/helpers/live.ts';
import { WebhookReceiver } from '../test/helpers/webhook-receiver.ts';
import { eventually } from '../test/helpers/eventually.ts';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

type Walk = { name: string; files: string[] };

async function filesCalledDuring(session: Session, work: () => Promise<void>): Promise<string[]> {
  // Taking the coverage resets the call counts: what is taken after `work` is what it ran.
  await session.post('Profiler.takePreciseCoverage');
  await work();
  const { result } = await session.post('Profiler.takePreciseCoverage');
  const files = new Set<string>();
  for (const script of result) {
    if (!script.url.startsWith('file://')) continue;
    const file = fileURLToPath(script.url);
    if (!file.startsWith(SRC)) continue;
    if (script.functions.some((f) => f.ranges.some((r) => r.count > 0))) files.add(path.relative(SRC, file));
  }
  return [...files].sort();
}

async function walks(workers: boolean): Promise<Walk[]> {
  const receiver = await new WebhookReceiver().start();
  const t: TestApp = await startTestApp({ workers, env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
  const pages: LiveClient[] = [];
  try {
    const endpoint = await t.request('POST', '/v1/webhook_endpoints', { body: { url: receiver.url, enabled_events: ['*'] } });
    if (endpoint.status !== 201) throw new Error(`endpoint: ${endpoint.text}`);
    const delivered = async (n: number) => {
      if (workers) await eventually(async () => receiver.deliveries.length >= n, `${n} deliveries`, 10_000);
    };

    const create = async (): Promise<{ id: string; url: string }> => {
      const res = await t.request('POST', '/v1/tickets', { body: { queue: 'A' }, headers: { 'idempotency-key': crypto.randomUUID() } });
      if (res.status !== 201) throw new Error(`create: ${res.text}`);
      return { id: res.body.id, url: res.body.url };
    };
    const ready = async (ticket: { id: string; url: string }): Promise<void> => {
      const page = await openPage(t, ticket.url);
      pages.push(page);
      const res = await t.request('POST', `/v1/tickets/${ticket.id}/ready`, { headers: { 'idempotency-key': crypto.randomUUID() } });
      if (res.status !== 200) throw new Error(`ready: ${res.text}`);
      if (res.body.channel_used !== 'page') throw new Error(`the ring reached ${res.body.channel_used}, not the open page`);
    };

    // Warm up: everything both walks run, once.
    const first = await create();
    await ready(first);
    await delivered(receiver.deliveries.length + 2);

    // What every request runs (the plugins and hooks: rate limit, auth, input guard, framing, …):
    // a create refused by its body's validation, before any handler. Warmed up like the walks.
    const refused = async (): Promise<void> => {
      const res = await t.request('POST', '/v1/tickets', { body: { queue: 5 }, headers: { 'idempotency-key': crypto.randomUUID() } });
      if (res.status !== 422) throw new Error(`refused create: ${res.status} ${res.text}`);
    };
    await refused();

    const session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
    const everyFiles = await filesCalledDuring(session, refused);
    const createFiles = await filesCalledDuring(session, async () => {
      const before = receiver.deliveries.length;
      await create();
      await delivered(before + 1);
    });
    const second = await create();
    await delivered(receiver.deliveries.length + 1);
    const page = await openPage(t, second.url);
    pages.push(page);
    const readyFiles = await filesCalledDuring(session, async () => {
      const before = receiver.deliveries.length;
      const res = await t.request('POST', `/v1/tickets/${second.id}/ready`, { headers: { 'idempotency-key': crypto.randomUUID() } });
      if (res.body.channel_used !== 'page') throw new Error(`the ring reached ${res.body.channel_used}: ${res.text}`);
      // ticket.ready and ticket.rung
      await delivered(before + 2);
    });
    session.disconnect();
    const routeOnly = (files: string[]) => files.filter((f) => !everyFiles.includes(f));
    return [
      { name: 'every request (a create refused by validation)', files: everyFiles },
      { name: 'create', files: createFiles },
      { name: 'create, less what every request runs', files: routeOnly(createFiles) },
      { name: 'ready', files: readyFiles },
      { name: 'ready, less what every request runs', files: routeOnly(readyFiles) },
    ];
  } finally {
    for (const p of pages) p.close();
    await t.close();
    await receiver.close();
  }
}

const countsOnly = process.argv.includes('--counts');
for (const workers of [false, true]) {
  for (const walk of await walks(workers)) {
    const what = workers ? 'with the work its commit leaves' : 'the request alone';
    process.stdout.write(`${walk.name}, ${what}: ${walk.files.length} files of src\n`);
    if (!countsOnly) for (const f of walk.files) process.stdout.write(`  ${f}\n`);
  }
}
