// Billing through Stripe on two `readybell serve` nodes sharing PostgreSQL and Redis (issue 35 item
// 4, decision 0084): Checkout on one node, Stripe's event to one node, and the live key works on the
// other node at its very next request, though that node had cached the key with the free plan; the
// cancellation Stripe reports to the second node stops the key on the first at once. Runs in the
// PostgreSQL + Redis stage of CI.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type Cluster, type ClusterNode } from '../helpers/cluster.ts';
import type { TestApp } from '../helpers/app.ts';
import { FakeStripe } from '../helpers/fake-stripe.ts';
import { asSession, signInOk } from '../helpers/session.ts';
import { needsCluster } from '../helpers/store.ts';

const enabled = process.env.TEST_DATABASE_URL !== undefined && process.env.TEST_REDIS_URL !== undefined;
const stripe = new FakeStripe();
let cluster: Cluster;
const node = (i: number): ClusterNode => cluster.nodes[i]!;
const asApp = (n: ClusterNode): TestApp => n as unknown as TestApp;

before(async () => {
  if (!enabled) return;
  await stripe.start();
  cluster = await startCluster(2, stripe.env());
});
after(async () => {
  if (!enabled) return;
  await cluster?.close();
  await stripe.close();
});

const deliver = (n: ClusterNode, e: { body: string; signature: string }) =>
  n.request('POST', '/billing/stripe/webhook', {
    headers: { 'content-type': 'application/json', 'stripe-signature': e.signature },
    body: JSON.parse(e.body),
  });

test('checkout → active plan on both nodes at the next request; a cancellation stops it on both', needsCluster, async () => {
  const account = await cluster.cli('accounts', 'create', '--name', 'Two Nodes Café', '--plan', 'free');
  const branch = await cluster.cli('branches', 'create', '--account', account.id, '--name', 'Main');
  const { key } = await cluster.cli('keys', 'create', '--branch', branch.id, '--mode', 'live');
  await cluster.cli(
    'users',
    'create',
    '--account',
    account.id,
    '--email',
    'owner@two-nodes.example',
    '--role',
    'owner',
    '--password',
    'correct horse battery',
  );
  const owner = asSession(asApp(node(0)), await signInOk(asApp(node(0)), 'owner@two-nodes.example', 'correct horse battery'));
  // Both nodes verify the key now, and cache it with the free plan.
  for (const n of [node(0), node(1)]) assert.equal((await n.request('GET', '/v1/branch', { key })).body.code, 'plan-required');

  const checkout = await owner('POST', '/v1/billing/checkout', { body: { plan: 'pro', period: 'monthly' } });
  assert.equal(checkout.status, 200, checkout.text);
  const sessionId = String(checkout.body.url).split('/pay/')[1]!;
  const sub = stripe.subscribe(sessionId);
  assert.equal((await deliver(node(0), stripe.checkoutCompleted(sessionId, sub))).status, 200);
  assert.equal((await node(1).request('GET', '/v1/branch', { key })).status, 200, 'the other node, at its very next request');
  assert.equal((await node(0).request('GET', '/v1/branch', { key })).status, 200);

  sub.status = 'canceled';
  assert.equal((await deliver(node(1), stripe.event('customer.subscription.deleted', sub))).status, 200);
  assert.equal(
    (await node(0).request('GET', '/v1/branch', { key })).body.code,
    'plan-required',
    'the first node, at its very next request',
  );
  assert.equal((await node(1).request('GET', '/v1/branch', { key })).body.code, 'plan-required');
});
