// `readybell listen` end to end: a real server, `listen` as its own process reaching it through a
// proxy the test can cut, and a receiver on this machine checking both signatures. The connection
// is cut while events happen; afterwards every event has arrived exactly once.
// One engine: the `listen` client and its reconnection; /v1/stream itself is tested on both engines (stream-api-key, live-streams).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { nodeEnv, owned } from '../helpers/child-processes.ts';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { Webhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';
import { eventually } from '../helpers/eventually.ts';
import { runCli } from '../helpers/cli.ts';
import { listenSecret } from '../../src/cli/listen.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const NODE = `${ROOT}node_modules/.bin/node`;

let t: TestApp;
let receiver: WebhookReceiver;
let proxy: TcpProxy;
before(async () => {
  t = await startTestApp();
  receiver = await new WebhookReceiver().start();
  proxy = await startTcpProxy(Number(new URL(t.url).port));
});
after(async () => {
  await proxy.close();
  await receiver.close();
  await t.close();
});

type Listen = { child: ChildProcess; stdout(): string; stderr(): string; secret: string };

async function startListen(key: string, url: string, extra: string[] = []): Promise<Listen> {
  const child = owned(
    spawn(NODE, ['src/cli/main.ts', 'listen', '--forward-to', `${receiver.url}/hook`, ...extra], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...nodeEnv(), READYBELL_API_KEY: key, READYBELL_URL: url },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  await eventually(() => /signing secret is whsec_/.test(stdout) || child.exitCode !== null, 'listen to be ready', 20_000);
  const secret = /signing secret is (whsec_[A-Za-z0-9]+)/.exec(stdout)?.[1];
  assert.ok(secret !== undefined, `listen did not start: ${stderr}`);
  return { child, stdout: () => stdout, stderr: () => stderr, secret };
}

async function createTicket(key: string): Promise<string> {
  const res = await t.request('POST', '/v1/tickets', { key, body: { queue: 'A' } });
  assert.equal(res.status, 201, res.text);
  return res.body.id;
}

/** The branch's events after `afterId`, oldest first, as the events API lists them. */
async function eventsAfter(key: string, afterId: string): Promise<string[]> {
  const res = await t.request('GET', '/v1/events?limit=100', { key });
  const ids = (res.body.data as Array<{ id: string }>).map((e) => e.id).reverse();
  return ids.slice(ids.indexOf(afterId) + 1);
}

test('listen forwards each new event once, signed both ways, and loses none across a dropped connection', async () => {
  const tenant = await t.newTenant();
  const key = tenant.testKey;
  await createTicket(key);
  const [before] = (await t.request('GET', '/v1/events?limit=1', { key })).body.data;
  const listen = await startListen(key, proxy.url);
  try {
    assert.equal(listen.secret, listenSecret(key), 'the same secret on every run with this key');
    assert.match(listen.secret, /^whsec_[A-Za-z0-9]{44}$/);
    assert.match(listen.stdout(), new RegExp(`Ready! Forwarding test events of branch .*\\(${tenant.branchId}\\) to ${receiver.url}/hook`));
    receiver.secrets = [listen.secret];
    receiver.answer = (_d, n) => (n === 2 ? { status: 500, body: 'kitchen on fire' } : { status: 200 });
    const mine = () => receiver.deliveries.filter((d) => d.event?.branch === tenant.branchId);

    const first = await createTicket(key);
    await eventually(() => mine().length === 1, 'the first event at the receiver', 15_000);
    assert.equal((mine()[0]!.event!.data.object as { id: string }).id, first);
    assert.equal(mine()[0]!.event!.type, 'ticket.created');
    await createTicket(key);
    await eventually(() => mine().length === 2, 'the second event at the receiver', 15_000);

    // The connection drops; meanwhile the shop goes on.
    proxy.cut();
    await eventually(
      () => /lost the connection|cannot read the events/.test(listen.stderr()),
      'listen to notice the dropped connection',
      15_000,
    );
    const during = [await createTicket(key), await createTicket(key)];
    assert.equal((await t.request('POST', `/v1/tickets/${first}/ready`, { key })).status, 200);
    assert.equal((await t.request('POST', `/v1/tickets/${first}/collect`, { key })).status, 200);
    proxy.resume();

    const expected = await eventsAfter(key, before.id);
    assert.ok(expected.length >= 6, `events made: ${expected.length}`);
    await eventually(() => mine().length >= expected.length, `all ${expected.length} events at the receiver`, 20_000);
    // One more event after the catch-up: a read that would double anything has run by then.
    const last = await createTicket(key);
    await eventually(
      () => mine().some((d) => (d.event!.data.object as { id: string }).id === last && d.event!.type === 'ticket.created'),
      'the last event',
      15_000,
    );

    const all = await eventsAfter(key, before.id);
    assert.deepEqual(
      mine().map((d) => d.event!.id),
      all,
      'every event once, oldest first, none from before listen started',
    );
    assert.ok(during.every((id) => mine().some((d) => (d.event!.data.object as { id: string }).id === id)));
    for (const d of mine()) {
      assert.deepEqual(d.verifiedBy, [listen.secret], 'Service-Signature');
      assert.deepEqual(d.standardVerifiedBy, [listen.secret], 'Standard Webhooks');
      assert.equal(d.headers['webhook-id'], d.event!.id);
      assert.equal(d.headers['service-event-type'], d.event!.type);
    }
    // The official libraries accept what listen sends, as they accept real deliveries.
    const sample = mine()[0]!;
    assert.equal(
      (new Webhook(listen.secret).verify(sample.body, sample.headers as Record<string, string>) as { id: string }).id,
      sample.event!.id,
    );
    assert.equal(
      Stripe.webhooks.constructEvent(sample.body, String(sample.headers['service-signature']), listen.secret).id,
      sample.event!.id,
    );

    // One line per event, with the receiver's answer (printed once the receiver has answered).
    const lines = () =>
      listen
        .stdout()
        .split('\n')
        .filter((l) => / evt_/.test(l));
    await eventually(() => lines().length >= all.length, 'a line per event');
    assert.equal(lines().length, all.length);
    for (const [i, id] of all.entries())
      assert.match(lines()[i]!, new RegExp(`${id}  \\[${i === 1 ? 500 : 200}\\] POST ${receiver.url}/hook`));
    assert.match(listen.stdout(), /reconnected/);
  } finally {
    const exited = once(listen.child, 'exit');
    listen.child.kill('SIGINT');
    const [code] = await exited;
    assert.equal(code, 0, listen.stderr());
  }
});

test('listen --events forwards only the types asked for', async () => {
  const tenant = await t.newTenant();
  const key = tenant.testKey;
  const listen = await startListen(key, t.url, ['--events', 'ticket.ready,ticket.collected']);
  try {
    receiver.secrets = [listen.secret];
    receiver.answer = () => ({ status: 204 });
    const id = await createTicket(key);
    assert.equal((await t.request('POST', `/v1/tickets/${id}/ready`, { key })).status, 200);
    assert.equal((await t.request('POST', `/v1/tickets/${id}/collect`, { key })).status, 200);
    const mine = () => receiver.deliveries.filter((d) => d.event?.branch === tenant.branchId);
    await eventually(() => mine().length === 2, 'the ready and collected events', 15_000);
    assert.deepEqual(
      mine().map((d) => d.event!.type),
      ['ticket.ready', 'ticket.collected'],
    );
    // listen prints its line once the receiver has answered.
    await eventually(() => /ticket\.collected +evt_\w+ {2}\[204\]/.test(listen.stdout()), 'the line of the collected event');
  } finally {
    const exited = once(listen.child, 'exit');
    listen.child.kill('SIGINT');
    assert.equal((await exited)[0], 0, listen.stderr());
  }
});

test('listen says what is wrong and stops: no target, a refused key, a service it cannot reach', async () => {
  const env = { READYBELL_API_KEY: t.tenant.testKey, READYBELL_URL: t.url };
  const noTarget = await runCli(env, ['listen']);
  assert.equal(noTarget.code, 2);
  assert.match(noTarget.stderr, /--forward-to is required/);
  const badTarget = await runCli(env, ['listen', '--forward-to', 'ftp://localhost/x']);
  assert.equal(badTarget.code, 2);
  assert.match(badTarget.stderr, /must be an http\(s\) URL/);
  const typo = await runCli(env, ['listen', '--forward-to', `${receiver.url}/hook`, '--events', 'ticket.ready,ticket.redy']);
  assert.equal(typo.code, 2);
  assert.match(typo.stderr, /Unknown event type ticket\.redy in --events/);
  const noKey = await runCli({ READYBELL_URL: t.url }, ['listen', '--forward-to', `${receiver.url}/hook`]);
  assert.equal(noKey.code, 2);
  assert.match(noKey.stderr, /READYBELL_API_KEY/);

  const refused = await runCli({ ...env, READYBELL_API_KEY: `rk_test_${'x'.repeat(32)}` }, [
    'listen',
    '--forward-to',
    `${receiver.url}/hook`,
  ]);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /^error: 401 from \/v1\/branch: /);

  const unreachable = await runCli(env, ['listen', '--forward-to', `${receiver.url}/hook`, '--url', 'http://127.0.0.1:9']);
  assert.equal(unreachable.code, 1);
  assert.match(unreachable.stderr, /^error: cannot reach http:\/\/127\.0\.0\.1:9: /);
});
