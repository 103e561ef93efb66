// Tenant and mode isolation (PRODUCT.md §1, §5): one walker over every ticket route. For a ticket
// owned by one key, every other branch, mode and account gets 404 (lists simply leave it out),
// and the ticket is unchanged. Like unkey's runCommonRouteTests: a new route is one line in ROUTES.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type Res, type TestApp } from '../helpers/app.ts';
import { FakeClock } from '../helpers/clock.ts';
import { createTicket } from '../helpers/tickets.ts';

type Fixture = { id: string; ref: string; eventId: string };
type Route = { name: string; method: 'GET' | 'POST'; path: (f: Fixture) => string; body?: unknown; list?: true };

const ROUTES: Route[] = [
  { name: 'get ticket', method: 'GET', path: (f) => `/v1/tickets/${f.id}` },
  { name: 'list tickets', method: 'GET', path: () => '/v1/tickets?limit=100', list: true },
  { name: 'list tickets by external_ref', method: 'GET', path: (f) => `/v1/tickets?external_ref=${f.ref}`, list: true },
  { name: 'ready', method: 'POST', path: (f) => `/v1/tickets/${f.id}/ready` },
  { name: 'ring', method: 'POST', path: (f) => `/v1/tickets/${f.id}/ring` },
  { name: 'collect', method: 'POST', path: (f) => `/v1/tickets/${f.id}/collect` },
  { name: 'cancel', method: 'POST', path: (f) => `/v1/tickets/${f.id}/cancel`, body: { reason: 'not yours' } },
  { name: 'qr.svg', method: 'GET', path: (f) => `/v1/tickets/${f.id}/qr.svg` },
  { name: 'qr.png', method: 'GET', path: (f) => `/v1/tickets/${f.id}/qr.png` },
  { name: 'get event', method: 'GET', path: (f) => `/v1/events/${f.eventId}` },
  { name: 'list events', method: 'GET', path: () => '/v1/events?limit=100', list: true },
];

const clock = new FakeClock();
let t: TestApp;
before(async () => {
  // Enough write tokens for the walk; the limits themselves are tested elsewhere.
  t = await startTestApp({ clock, env: { RATE_LIMIT_WRITES_BURST: '10000', RATE_LIMIT_READS_BURST: '10000' } });
});
after(() => t.close());

async function stored(id: string): Promise<unknown> {
  const db = t.app.services.db;
  return {
    ticket: await db.query('SELECT * FROM tickets WHERE id = $1', [id]),
    rings: await db.query('SELECT id FROM rings WHERE ticket_id = $1', [id]),
    events: (await db.query<{ n: number }>("SELECT COUNT(*) AS n FROM events WHERE body LIKE '%' || $1 || '%'", [id]))[0]!.n,
  };
}

/** Walks every route with every intruder key and checks each answer and the ticket afterwards. */
async function walk(owner: string, intruders: Record<string, string>, ticketState: 'created' | 'ready'): Promise<void> {
  const ref = `iso-${Math.random().toString(36).slice(2, 10)}`;
  const tk = await createTicket(t, { key: owner, body: { external_ref: ref, customer_phone: '+33612345678' } });
  if (ticketState === 'ready') assert.equal((await t.request('POST', `/v1/tickets/${tk.id}/ready`, { key: owner })).status, 200);
  clock.advance(10_000); // so that a ring by the owner would be allowed: only isolation can refuse it
  const events = await t.request('GET', '/v1/events?limit=100', { key: owner });
  const fixture: Fixture = { id: tk.id, ref, eventId: events.body.data.find((e: any) => e.data.object.id === tk.id).id };
  // The owner's reads find it, so a 404 below is isolation and not a broken route.
  for (const route of ROUTES.filter((r) => r.method === 'GET')) {
    const own = await t.request('GET', route.path(fixture), { key: owner });
    assert.equal(own.status, 200, `the owner can use ${route.name}`);
    if (route.list) assert.ok(own.text.includes(tk.id), `the owner's ${route.name} lists it`);
  }

  const before = await stored(tk.id);
  for (const [who, key] of Object.entries(intruders)) {
    for (const route of ROUTES) {
      const res: Res = await t.request(route.method, route.path(fixture), { key, body: route.body });
      const what = `${route.name} by ${who}`;
      if (route.list) {
        assert.equal(res.status, 200, what);
        assert.ok(!res.text.includes(tk.id), `${what} must not list the ticket`);
      } else {
        assert.equal(res.status, 404, `${what}: ${res.text}`);
        assert.equal(res.body.code, 'not-found', what);
        assert.equal(res.body.ticket_status, undefined, `${what} must not hint at the state`);
      }
    }
  }
  assert.deepEqual(await stored(tk.id), before, 'the ticket is unchanged');
  assert.equal((await t.request('GET', `/v1/tickets/${tk.id}`, { key: owner })).body.status, ticketState);
}

test('a test ticket is invisible to another branch, the live key and another account', async () => {
  const owner = await t.newTenant();
  const sibling = await t.newTenant({ accountId: owner.accountId });
  const stranger = await t.newTenant();
  for (const state of ['created', 'ready'] as const) {
    await walk(
      owner.testKey,
      {
        'another branch of the account': sibling.testKey,
        'the live key of the branch': owner.liveKey,
        'another account': stranger.testKey,
      },
      state,
    );
  }
});

test('a live ticket is invisible to another branch, the test key and another account', async () => {
  const owner = await t.newTenant();
  const sibling = await t.newTenant({ accountId: owner.accountId });
  const stranger = await t.newTenant();
  for (const state of ['created', 'ready'] as const) {
    await walk(
      owner.liveKey,
      {
        'another branch of the account': sibling.liveKey,
        'the test key of the branch': owner.testKey,
        'another account': stranger.liveKey,
      },
      state,
    );
  }
});
