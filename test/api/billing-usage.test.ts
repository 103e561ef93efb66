// SMS usage to Stripe (issue 35 item 4, decision 0085): each SMS a live ticket's ring sends is one
// billing meter event, reported once, by a durable job: a `readybell worker` killed while Stripe
// holds its requests loses none, and the worker that takes the jobs over repeats the same
// identifiers, which Stripe (the fake, as Stripe does) counts once. Test mode's texts are not usage.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { startTestApp, type TestApp, type Tenant } from '../helpers/app.ts';
import { nodeEnv, owned } from '../helpers/child-processes.ts';
import { eventually } from '../helpers/eventually.ts';
import { FakeStripe } from '../helpers/fake-stripe.ts';
import { FakeSmsProvider } from '../helpers/sms-provider.ts';
import { asSession, signInOk } from '../helpers/session.ts';

const root = path.resolve(import.meta.dirname, '../..');
const PHONE = '+14155550123';
const stripe = new FakeStripe();
let sms: FakeSmsProvider;
let t: TestApp;
const children: ChildProcess[] = [];

before(async () => {
  await stripe.start();
  sms = await new FakeSmsProvider().start();
  // Real clock: the worker processes run on real time, and the jobs' run_at must agree with it.
  t = await startTestApp({ env: { ...stripe.env(), ...sms.env() } });
});
after(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await t?.close();
  await sms?.close();
  await stripe.close();
});

function startWorker(): ChildProcess {
  const { config } = t.app.services;
  const store: Record<string, string> = config.databaseUrl !== null ? { DATABASE_URL: config.databaseUrl } : { DATA_DIR: config.dataDir };
  const child = owned(
    spawn(process.execPath, ['src/cli/main.ts', 'worker'], {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        LOG_LEVEL: 'silent',
        ...nodeEnv(),
        ...stripe.env(),
        ...sms.env(),
        JOB_LEASE_MS: '2000',
        JOB_POLL_MS: '50',
        ...store,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    }),
  );
  children.push(child);
  return child;
}

const exited = (c: ChildProcess): Promise<unknown> =>
  c.exitCode !== null || c.signalCode !== null ? Promise.resolve() : new Promise((resolve) => c.once('exit', resolve));

/** A business-plan account paid through Checkout. */
async function paidShop(): Promise<{ tenant: Tenant; owner: ReturnType<typeof asSession>; customer: string }> {
  const tenant = await t.newTenant({ plan: 'free' });
  const owner = asSession(t, await signInOk(t, tenant.ownerEmail, tenant.ownerPassword));
  const checkout = await owner('POST', '/v1/billing/checkout', { body: { plan: 'business', period: 'monthly' } });
  assert.equal(checkout.status, 200, checkout.text);
  const sessionId = String(checkout.body.url).split('/pay/')[1]!;
  const sub = stripe.subscribe(sessionId);
  const e = stripe.checkoutCompleted(sessionId, sub);
  const done = await t.request('POST', '/billing/stripe/webhook', {
    key: null,
    raw: e.body,
    headers: { 'content-type': 'application/json', 'stripe-signature': e.signature },
  });
  assert.equal(done.status, 200);
  return { tenant, owner, customer: sub.customer };
}

async function textedTicket(key: string): Promise<string> {
  const ticket = await t.request('POST', '/v1/tickets', { key, body: { customer_phone: PHONE } });
  assert.equal(ticket.status, 201, ticket.text);
  const ready = await t.request('POST', `/v1/tickets/${ticket.body.id}/ready`, { key });
  assert.equal(ready.body.channel_used, 'sms', ready.text);
  return ticket.body.id as string;
}

test('each live SMS is one meter event, reported once across a worker killed mid-report; test mode is not usage', async () => {
  const { tenant, owner, customer } = await paidShop();
  for (let i = 0; i < 3; i++) await textedTicket(tenant.liveKey);
  await textedTicket(tenant.testKey);
  const rings = await t.app.services.db.query<{ ring_id: string }>('SELECT ring_id FROM sms_usage WHERE account_id = $1 ORDER BY ring_id', [
    tenant.accountId,
  ]);
  assert.equal(rings.length, 3, 'three live texts, the test one not counted');
  assert.equal((await owner('GET', '/v1/billing')).body.sms_this_month, 3);

  // Stripe takes the events and never answers: the worker is killed with all three in flight.
  stripe.holdMeterEvents = true;
  const first = startWorker();
  await eventually(() => stripe.meterEvents.size === 3, 'the first worker reported all three', 15_000);
  first.kill('SIGKILL');
  await exited(first);
  stripe.release();
  stripe.holdMeterEvents = false;

  // Their leases run out; another worker reports them again, with the same identifiers.
  const second = startWorker();
  const pending = async () =>
    Number(
      (
        await t.app.services.db.query<{ n: number }>(
          "SELECT COUNT(*) AS n FROM jobs WHERE kind = 'billing_sms_usage' AND done_at IS NULL AND account_id = $1",
          [tenant.accountId],
        )
      )[0]!.n,
    );
  await eventually(async () => (await pending()) === 0, 'the second worker finished the jobs', 20_000);
  second.kill('SIGTERM');
  await exited(second);

  assert.deepEqual([...stripe.meterEvents.keys()].sort(), rings.map((r) => `sms_${r.ring_id}`).sort(), 'one event per SMS');
  assert.equal(stripe.meterRepeats, 3, 'the second worker sent each again, and Stripe counted none twice');
  for (const ev of stripe.meterEvents.values()) assert.deepEqual([ev.event_name, ev.customer, ev.value], ['readybell_sms', customer, '1']);
});
