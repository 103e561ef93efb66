// The POS integrations of examples/<language>/ (Python, Go, PHP, Java), each run as an integrator
// would paste it, against a real `readybell serve` process: the POS creates a ticket through a
// proxy that answers 503, then 429 with Retry-After, then loses the answer of the request that
// made the ticket, so it must retry with one Idempotency-Key and wait as told; it marks the ticket
// ready, prints channel_used, meets a ticket-state-conflict and collects. Its webhook receiver
// gets the real deliveries of those changes and a resend, and refuses a replayed, stale, forged or
// half-signed request with 400. A language whose toolchain is missing is skipped with the reason.
// The integrator guide shows each language beside curl with excerpts of these files, checked here
// to be their own lines.
// One engine: the examples are HTTP clients and receivers of the API; what the store does behind it is tested on both engines by the API tests.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startTestApp, type TestApp, type Tenant } from '../helpers/app.ts';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.ts';
import { owned } from '../helpers/child-processes.ts';
import { eventually } from '../helpers/eventually.ts';
import { freePort } from '../helpers/free-port.ts';
import { startFaultyProxy, TOO_MANY_AFTER_SECONDS } from '../helpers/faulty-proxy.ts';
import { LANGUAGES, runBounded, type Command } from '../helpers/example-languages.ts';
import { signedHeaders } from '../../src/webhooks/signature.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
// Per attempt: the POS gives up on the lost answer after this long.
const POS_TIMEOUT_SECONDS = 2;
const EVENTS = ['ticket.created', 'ticket.ready', 'ticket.rung', 'ticket.collected'];

let t: TestApp;
let server: ServerProcess;
let scratch: string;

before(async () => {
  t = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
  server = await startServerProcess(t, { WEBHOOK_ALLOW_PRIVATE: 'true' });
  scratch = mkdtempSync(path.join(tmpdir(), 'readybell-examples-'));
});
after(async () => {
  await server?.kill('SIGTERM');
  await t?.close();
  if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
});

async function api(tenant: Tenant, method: string, url: string, body?: unknown): Promise<any> {
  const res = await fetch(server.url + url, {
    method,
    headers: { authorization: `Bearer ${tenant.testKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  assert.ok(res.ok, `${method} ${url}: ${res.status} ${text}`);
  return text === '' ? undefined : JSON.parse(text);
}

type Receiver = { output(): string; stop(): Promise<void> };

/** Starts a receiver and waits until its port takes connections. */
async function startReceiver(cmd: Command, env: Record<string, string>, port: number): Promise<Receiver> {
  const child = owned(
    spawn(cmd.command, cmd.args, {
      cwd: cmd.cwd,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...cmd.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  const accepts = () =>
    new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.end();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
  const deadline = Date.now() + 60_000;
  while (!(await accepts())) {
    if (exited()) throw new Error(`the receiver exited (${child.exitCode ?? child.signalCode}): ${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the receiver did not listen within 60 s: ${output}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    output: () => output,
    async stop() {
      if (exited()) return;
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await gone;
    },
  };
}

/** How often the receiver printed that it handled `eventId`. */
function handled(receiver: Receiver, type: string, eventId: string): number {
  return receiver
    .output()
    .split('\n')
    .filter((line) => line.trim() === `event ${type} ${eventId}`).length;
}

for (const language of LANGUAGES) {
  test(`${language.name}: the POS example retries with one key, marks ready, branches on the code; its receiver verifies real deliveries`, {
    skip: language.missing,
  }, async (ctx) => {
    const times: string[] = [];
    let mark = Date.now();
    const step = (what: string) => {
      times.push(`${what} ${Date.now() - mark} ms`);
      mark = Date.now();
    };
    const out = path.join(scratch, language.name.toLowerCase());
    const example = await language.build(out);
    step('build');

    const tenant = await t.newTenant();
    const port = await freePort();
    const endpoint = await api(tenant, 'POST', '/v1/webhook_endpoints', { url: `http://127.0.0.1:${port}/webhooks` });
    const inbox = mkdtempSync(path.join(scratch, 'inbox-'));
    const receiver = await startReceiver(example.receiver(port, inbox), { READYBELL_WEBHOOK_SECRET: endpoint.secret }, port);
    const proxy = await startFaultyProxy(server.url);
    try {
      step('receiver start');
      const order = `${language.name.toLowerCase()}-1001`;
      const pos = await runBounded(
        example.pos(order),
        { READYBELL_URL: proxy.url, READYBELL_API_KEY: tenant.testKey, READYBELL_TIMEOUT_SECONDS: String(POS_TIMEOUT_SECONDS) },
        90_000,
      );
      step('POS run');
      const said = `${pos.stdout}${pos.stderr}`;
      assert.equal(pos.code, 0, said);

      // The create: one key on every attempt, Retry-After honoured, the replay answered, one
      // ticket. Four attempts; five when readybell was slower than the POS's timeout once more.
      const creates = proxy.creates;
      const statuses = creates.map((c) => c.status);
      assert.deepEqual(statuses.slice(0, 3), [503, 429, 201], said);
      assert.ok(creates.length === 4 || creates.length === 5, `${creates.length} attempts: ${said}`);
      assert.equal(creates.at(-1)!.status, 201, said);
      assert.deepEqual(new Set(creates.map((c) => c.idempotencyKey)), new Set([`order-${order}-create`]), 'one key on every attempt');
      assert.ok(
        creates[2]!.at - creates[1]!.at >= TOO_MANY_AFTER_SECONDS * 1000,
        `waited Retry-After: ${creates[2]!.at - creates[1]!.at} ms`,
      );
      assert.ok(creates.at(-1)!.replayed, 'the retry after the lost answer got the stored answer');
      const tickets = (await api(tenant, 'GET', `/v1/tickets?external_ref=${order}`)).data;
      assert.equal(tickets.length, 1, 'one ticket for the order, whatever the retries');
      const ticket = tickets[0];
      assert.equal(ticket.status, 'collected');

      const lines = pos.stdout.trim().split('\n');
      const expected = [
        /^retrying POST \/v1\/tickets in 0\.5 s after 503 unavailable$/,
        new RegExp(`^retrying POST /v1/tickets in ${TOO_MANY_AFTER_SECONDS} s after 429 rate-limited$`),
        ...creates.slice(3).map(() => /^retrying POST \/v1\/tickets in [24](\.0)? s after no answer/),
        new RegExp(`^created ${ticket.id} ${ticket.display_number} ${ticket.url.replace(/[.?]/g, '\\$&')}$`),
        /^ready: channel_used=none rang=false call_out_loud=false$/,
        new RegExp(`^nobody was reached: call ${ticket.display_number} out loud$`),
        /^not marked ready: the ticket is already ready$/,
        new RegExp(`^collected ${ticket.id}$`),
      ];
      assert.equal(lines.length, expected.length, said);
      for (const [i, re] of expected.entries()) assert.match(lines[i]!, re, said);

      // Every change reached the receiver, verified, answered 2xx at once.
      const events = (await api(tenant, 'GET', '/v1/events?limit=100')).data.filter((e: any) => e.data.object.id === ticket.id);
      assert.deepEqual(events.map((e: any) => e.type).sort(), [...EVENTS].sort());
      let deliveries: any[] = [];
      await eventually(
        async () => {
          deliveries = (await api(tenant, 'GET', `/v1/webhook_endpoints/${endpoint.id}/deliveries?limit=100`)).data;
          return deliveries.length === EVENTS.length && deliveries.every((d) => d.status === 'succeeded');
        },
        `${EVENTS.length} deliveries succeeded`,
        30_000,
      ).catch((err) => assert.fail(`${err.message}: ${JSON.stringify(deliveries)}\n${receiver.output()}`));
      for (const d of deliveries) {
        assert.ok(
          d.attempts.every((a: any) => a.response_status >= 200 && a.response_status < 300),
          JSON.stringify(d),
        );
      }
      const slowest = Math.max(...deliveries.flatMap((d) => d.attempts.map((a: any) => a.duration_ms)));
      assert.ok(slowest < 3000, `answered in ${slowest} ms`);
      await eventually(() => events.every((e: any) => handled(receiver, e.type, e.id) === 1), 'each event handled', 10_000).catch(() =>
        assert.fail(receiver.output()),
      );
      step(`deliveries (slowest answer ${slowest} ms)`);

      // A resend of a delivery (new timestamp, same event id) is answered 2xx, and handled once.
      const created = deliveries.find((d) => d.event === events.find((e: any) => e.type === 'ticket.created').id);
      await api(tenant, 'POST', `/v1/webhook_deliveries/${created.id}/retry`);
      await eventually(
        async () => (await api(tenant, 'GET', `/v1/webhook_deliveries/${created.id}`)).attempts.length === 2,
        'the resend',
        20_000,
      );
      const resent = (await api(tenant, 'GET', `/v1/webhook_deliveries/${created.id}`)).attempts.at(-1);
      assert.ok(resent.response_status >= 200 && resent.response_status < 300, JSON.stringify(resent));
      assert.equal(handled(receiver, 'ticket.created', created.event), 1, 'a resend is not handled twice');
      step('resend');

      // Requests readybell did not send, or sent once already.
      const url = `http://127.0.0.1:${port}/webhooks`;
      const send = async (headers: Record<string, string>, body: string) =>
        (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body })).status;
      const now = Math.floor(Date.now() / 1000);
      const id = `evt_example_${language.name.toLowerCase()}`;
      const body = JSON.stringify({ id, object: 'event', type: 'ping', created_at: new Date().toISOString(), data: {} });
      const genuine = signedHeaders([endpoint.secret], id, now, body);
      assert.equal(await send(genuine, body), 204, 'a genuine delivery');
      assert.equal(await send(genuine, body), 400, 'the same delivery again: a replay');
      assert.equal(await send(signedHeaders([endpoint.secret], id, now - 600, body), body), 400, 'a stale timestamp');
      assert.equal(await send(signedHeaders([endpoint.secret], id, now + 600, body), body), 400, 'a timestamp in the future');
      assert.equal(
        await send(signedHeaders([endpoint.secret], id, now + 1, body), body.replace('ping', 'pong')),
        400,
        'a body changed on the way',
      );
      const other = 'whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
      assert.equal(await send(signedHeaders([other], id, now + 2, body), body), 400, 'another secret');
      const { 'webhook-signature': _, ...stripeOnly } = signedHeaders([endpoint.secret], id, now + 3, body);
      assert.equal(await send(stripeOnly, body), 400, 'without the Standard Webhooks signature');
      const { 'Service-Signature': __, ...standardOnly } = signedHeaders([endpoint.secret], id, now + 4, body);
      assert.equal(await send(standardOnly, body), 400, 'without Service-Signature');
      await eventually(() => handled(receiver, 'ping', id) === 1, 'the genuine one handled', 5000).catch(() =>
        assert.fail(receiver.output()),
      );
      step('refusals');
    } finally {
      await proxy.close();
      await receiver.stop();
      ctx.diagnostic(`${language.name}: ${times.join(', ')}`);
    }
  });
}

test("the integrator guide's excerpts beside curl are lines of the examples, one per language", () => {
  const guide = readFileSync(path.join(ROOT, 'docs/integrator-guide.md'), 'utf8');
  const excerpts = [...guide.matchAll(/<!-- excerpt: (\S+) -->\n```\w*\n([\s\S]*?)```/g)];
  assert.deepEqual(
    excerpts.map((m) => m[1]),
    ['examples/python/pos.py', 'examples/go/pos/main.go', 'examples/php/pos.php', 'examples/java/ReadybellPos.java'],
  );
  for (const [, file, block] of excerpts) {
    const lines = new Set(
      readFileSync(path.join(ROOT, file!), 'utf8')
        .split('\n')
        .map((line) => line.trim()),
    );
    for (const line of block!.split('\n').map((l) => l.trim())) {
      if (line !== '' && line !== '…') assert.ok(lines.has(line), `${file} has the guide's line: ${line}`);
    }
  }
});
