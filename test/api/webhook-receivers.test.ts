// Verifying webhooks outside this repository, as docs/webhooks-verify.md tells integrators to:
// `@readybell/webhooks` packed with `npm pack` and installed offline into a project of its own, and
// the guide's receivers in Node (on that package), Python (the machine's python3, standard library)
// and Java (`java File.java`), each run as written against real deliveries, both schemes checked.
// One engine: the published verifier and the guide's receivers check signatures made without the store; deliveries themselves are tested on both engines.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startTestApp, type TestApp, type Tenant } from '../helpers/app.ts';
import { createEndpoint, createTicket, deliveriesOf } from '../helpers/webhooks.ts';
import { startReceiver, writeDocumentedReceivers, type ReceiverProcess } from '../helpers/docs-receivers.ts';
import { signedHeaders } from '../../src/webhooks/signature.ts';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const PKG = JSON.parse(readFileSync(path.join(ROOT, 'packages/webhooks/package.json'), 'utf8')) as {
  name: string;
  version: string;
  license: string;
};
const TARBALL = `readybell-webhooks-${PKG.version}.tgz`;
// Before secrets were canonical base64 they were 43 base64url characters: such an endpoint's
// deliveries must keep verifying.
const LEGACY_SECRET = 'whsec_3q2-7w_Zk9Xb0aYtLmN1pQrS2uVwX4yZ5A6B7C8D9E0';

let t: TestApp;
let project: string;

before(async () => {
  t = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
  project = mkdtempSync(path.join(tmpdir(), 'readybell-receivers-'));
  writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'pos-receiver', private: true, type: 'module' }));
  // Exactly the documented commands: pack in the checkout, install the file with no registry.
  await run('npm', ['pack', './packages/webhooks', '--pack-destination', project], { cwd: ROOT });
  await run('npm', ['install', `./${TARBALL}`, '--offline', '--no-audit', '--no-fund'], { cwd: project });
  assert.deepEqual(writeDocumentedReceivers(project).sort(), ['ReadybellReceiver.java', 'receiver.mjs', 'receiver.py']);
});
after(async () => {
  await t?.close();
  if (project !== undefined) rmSync(project, { recursive: true, force: true });
});

/** The status the receiver gave to the delivery of `eventId`, from the endpoint's delivery log. */
async function answered(tenant: Tenant, endpointId: string, eventId: string): Promise<number | null> {
  const delivery = (await deliveriesOf(t, endpointId, tenant.testKey)).find((d) => d.event === eventId);
  assert.ok(delivery !== undefined, `a delivery of ${eventId}`);
  return delivery.attempts.at(-1).response_status;
}

/** Creates a ticket, delivers its event now, and returns the event's id. */
async function deliverOne(tenant: Tenant): Promise<string> {
  const ticketId = await createTicket(t, tenant.testKey);
  await t.app.runner.runOnce();
  const events = await t.request('GET', '/v1/events?type=ticket.created&limit=100', { key: tenant.testKey });
  return events.body.data.find((e: { data: { object: { id: string } } }) => e.data.object.id === ticketId).id;
}

async function rotate(tenant: Tenant, endpointId: string, expiresIn: number): Promise<void> {
  const res = await t.request('POST', `/v1/webhook_endpoints/${endpointId}/rotate_secret`, {
    key: tenant.testKey,
    body: { expires_in: expiresIn },
  });
  assert.equal(res.status, 200, res.text);
}

type Launch = (secret: string) => Promise<ReceiverProcess>;

/**
 * Real deliveries to a receiver holding a fresh secret (alone, then beside a rotated one, then no
 * longer valid), and to one holding a secret issued before; a forged delivery is refused.
 */
async function exercise(launch: Launch, printsEvent: (eventId: string) => string): Promise<void> {
  const fresh = await t.newTenant();
  const legacy = await t.newTenant();
  const endpointFresh = await createEndpoint(t, { url: 'http://127.0.0.1:9/placeholder' }, fresh.testKey);
  const endpointLegacy = await createEndpoint(t, { url: 'http://127.0.0.1:9/placeholder' }, legacy.testKey);
  // An endpoint created before secrets were canonical base64 (no WEBHOOK_SECRETS_KEY: stored as is).
  await t.app.services.db.write((tx) =>
    tx.run('UPDATE webhook_endpoints SET secret = $1 WHERE id = $2', [LEGACY_SECRET, endpointLegacy.id]),
  );
  const [a, b] = await Promise.all([launch(endpointFresh.secret), launch(LEGACY_SECRET)]);
  try {
    for (const [tenant, endpoint, url] of [
      [fresh, endpointFresh, a.url],
      [legacy, endpointLegacy, b.url],
    ] as const) {
      const res = await t.request('PATCH', `/v1/webhook_endpoints/${endpoint.id}`, { key: tenant.testKey, body: { url } });
      assert.equal(res.status, 200, res.text);
    }

    const first = await deliverOne(fresh);
    assert.equal(await answered(fresh, endpointFresh.id, first), 204, a.output());
    assert.ok(a.output().includes(printsEvent(first)), a.output());

    await rotate(fresh, endpointFresh.id, 3600);
    const during = await deliverOne(fresh);
    assert.equal(await answered(fresh, endpointFresh.id, during), 204, 'the old secret verifies while the rotated one lives');

    await rotate(fresh, endpointFresh.id, 0);
    const afterwards = await deliverOne(fresh);
    assert.equal(await answered(fresh, endpointFresh.id, afterwards), 400, 'a secret no longer valid does not verify');

    const old = await deliverOne(legacy);
    assert.equal(await answered(legacy, endpointLegacy.id, old), 204, 'a secret issued before still verifies both schemes');

    // Signed with the right secret, but the body changed on the way: refused.
    const body = JSON.stringify({ id: 'evt_forged', object: 'event', type: 'ticket.ready', data: {} });
    const headers = signedHeaders([LEGACY_SECRET], 'evt_forged', Math.floor(Date.now() / 1000), body);
    const forged = await fetch(b.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: body.replace('ready', 'collected'),
    });
    assert.equal(forged.status, 400);
    const { 'webhook-signature': _, ...onlyStripeScheme } = headers;
    const half = await fetch(b.url, { method: 'POST', headers: { 'content-type': 'application/json', ...onlyStripeScheme }, body });
    assert.equal(half.status, 400, 'both schemes are checked');
    const genuine = await fetch(b.url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    assert.equal(genuine.status, 204);
  } finally {
    await Promise.all([a.stop(), b.stop()]);
  }
}

test(`${PKG.name} installs from its npm pack tarball offline, MIT licensed, with types`, () => {
  assert.equal(PKG.license, 'MIT');
  const installed = path.join(project, 'node_modules/@readybell/webhooks');
  const manifest = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8'));
  assert.equal(manifest.license, 'MIT');
  assert.match(readFileSync(path.join(installed, 'LICENSE'), 'utf8'), /^MIT License/);
  assert.match(readFileSync(path.join(installed, 'dist/index.d.ts'), 'utf8'), /export declare function verifyStandardWebhook\(/);
  assert.deepEqual(JSON.parse(readFileSync(path.join(project, 'package.json'), 'utf8')).dependencies, { [PKG.name]: `file:${TARBALL}` });
});

test('the Node receiver of the guide, on the installed package, verifies real deliveries', async () => {
  await exercise(
    (secret) => startReceiver(process.execPath, ['receiver.mjs'], project, secret),
    (id) => `ticket.created ${id}`,
  );
});

test("the Python receiver of the guide (standard library only) verifies real deliveries with the machine's python3", async () => {
  await exercise(
    (secret) => startReceiver('python3', ['receiver.py'], project, secret),
    (id) => `ticket.created ${id}`,
  );
});

test('the Java receiver of the guide verifies real deliveries with `java ReadybellReceiver.java`', async () => {
  await exercise(
    (secret) => startReceiver('java', ['ReadybellReceiver.java'], project, secret),
    (id) => `verified ${id}`,
  );
});
