// Square connector tests' shared steps: an owner's session on a test app whose Square application
// points at the fake, the OAuth round (authorize → the fake's authorize page → the callback), a
// chosen location, and notifications delivered as Square delivers them.
import assert from 'node:assert/strict';
import type { TestApp, Tenant } from './app.ts';
import { asSession, signInOk, type Signed } from './session.ts';
import type { FakeSquare, FakeOrder } from './fake-square.ts';

export type Owner = { session: Signed; as: ReturnType<typeof asSession>; tenant: Tenant };

export async function ownerOf(t: TestApp, tenant: Tenant): Promise<Owner> {
  const session = await signInOk(t, tenant.ownerEmail, tenant.ownerPassword);
  return { session, as: asSession(t, session), tenant };
}

/** Follows Square's redirect back to readybell with this browser's cookie; answers the 303's Location. */
export async function callback(t: TestApp, redirect: URL, cookie: string | null): Promise<{ status: number; location: string }> {
  const res = await fetch(`${t.url}${redirect.pathname}${redirect.search}`, {
    redirect: 'manual',
    headers: cookie === null ? {} : { cookie, 'sec-fetch-site': 'cross-site' },
  });
  await res.arrayBuffer();
  return { status: res.status, location: res.headers.get('location') ?? '' };
}

/** The whole connect: authorize, the fake's authorize page, the callback; then the location chosen. */
export async function connectSquare(t: TestApp, square: FakeSquare, owner: Owner, patch: Record<string, unknown> = {}): Promise<any> {
  const started = await owner.as('POST', '/v1/connectors/square/authorize');
  assert.equal(started.status, 200, started.text);
  const { redirect } = square.authorize(started.body.authorize_url);
  const back = await callback(t, redirect, owner.session.cookie);
  assert.equal(back.location, '/staff/#/settings/square?square=connected');
  const chosen = await owner.as('PATCH', '/v1/connectors/square', { body: { location_id: 'LMAIN0001', ...patch } });
  assert.equal(chosen.status, 200, chosen.text);
  assert.equal(chosen.body.status, 'connected');
  return chosen.body;
}

/** Delivers a notification to readybell's webhook as Square would (signed by the fake). */
export async function deliver(
  t: TestApp,
  n: { body: string; signature: string },
  signature: string | null = n.signature,
  contentType = 'application/json',
) {
  return t.request('POST', '/connectors/square/webhook', {
    key: null,
    raw: n.body,
    headers: { 'content-type': contentType, ...(signature === null ? {} : { 'x-square-hmacsha256-signature': signature }) },
  });
}

/** Delivers a notification for the order and runs the jobs it set off. */
export async function notifyAndRun(t: TestApp, square: FakeSquare, type: Parameters<FakeSquare['notification']>[0], order: FakeOrder) {
  const res = await deliver(t, square.notification(type, order));
  assert.equal(res.status, 200, res.text);
  await t.app.runner.runOnce();
  return res;
}
