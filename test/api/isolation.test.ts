// Tenant and mode isolation (PRODUCT.md §1, §5; decisions 0003, 0028), generated from the route
// table: every /v1 route the server mounted (mountedRoutes) is called, with the request its
// fixture describes (test/helpers/isolation-fixtures.ts), by every caller that does not share what
// it names: a key and a session of another branch of the account, of the branch's other mode and
// of another account. Each gets the documented answer (404 for what it may not see, lists without
// A's objects, its own data for what it creates), never one of A's ids; A's stored state is the
// same afterwards; then A's owner makes each call and it succeeds, so a refusal above was
// isolation and not a broken request. Like unkey's runCommonRouteTests, but a new route cannot be
// left out: without a fixture the walk fails. Writes to branch settings (fixtures marked liveOnly)
// are refused to every caller in test mode, the branch's own test key included (decision 0052).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type Res, type TestApp } from '../helpers/app.ts';
import { FakeClock } from '../helpers/clock.ts';
import { createTicket } from '../helpers/tickets.ts';
import { openSse, type SseClient } from '../helpers/sse-client.ts';
import { mountedRoutes, type MountedRoute } from '../../src/http/route-table.ts';
import { FIXTURES, LIVE_ONLY, type Call, type Fixture, type Outcome } from '../helpers/isolation-fixtures.ts';
import { buildWorld, forbiddenFor, stateOf, type Caller, type Mode, type World } from '../helpers/isolation-world.ts';

const clock = new FakeClock();
let t: TestApp;
before(async () => {
  // Enough tokens for the walk; the limits themselves are tested elsewhere.
  // SIGNUP=open: the walk signs up shops of its own (isolation-fixtures-signup.ts).
  t = await startTestApp({ clock, env: { RATE_LIMIT_WRITES_BURST: '10000', RATE_LIMIT_READS_BURST: '10000', SIGNUP: 'open' } });
});
after(() => t.close());

type Op = { route: string; method: string; access: MountedRoute['access']; fixture: Fixture };

/** Every /v1 route as mounted; HEAD is GET's answer without a body. */
function v1Routes(): MountedRoute[] {
  return mountedRoutes(t.app.server).filter((r) => r.url.startsWith('/v1/') && r.method !== 'HEAD');
}

/** In the fixtures' order, which is the order of the owner's calls after the walk. */
function operations(): Op[] {
  const routes = new Map(v1Routes().map((r) => [`${r.method} ${r.url}`, r]));
  const missing = [...routes.keys()].filter((k) => FIXTURES[k] === undefined);
  assert.deepEqual(missing, [], `no fixture in test/helpers/isolation-fixtures.ts says how to call ${missing.join(', ')}`);
  return Object.entries(FIXTURES).map(([route, fixture]) => {
    const mounted = routes.get(route);
    assert.ok(mounted, `${route} has a fixture but is not mounted`);
    return { route, method: mounted.method, access: mounted.access, fixture };
  });
}

test('every /v1 route of the route table has a fixture, and every fixture a route', () => {
  const routes = v1Routes();
  assert.ok(routes.length >= 50, `found only ${routes.length} /v1 routes`);
  for (const url of [
    '/v1/queues/:name',
    '/v1/displays/:id',
    '/v1/webhook_deliveries/:id/retry',
    '/v1/users/:id',
    '/v1/api_keys/:id',
    '/v1/announcements/:id',
  ]) {
    assert.ok(
      routes.some((r) => r.url === url),
      `${url} is mounted`,
    );
  }
  assert.equal(operations().length, routes.length);
});

/** Whether the caller shares what the route acts on (decision 0003): then it is not an intruder there. */
function shares(scope: Fixture['scope'], c: Caller): boolean {
  return (scope === 'branch' && c.sameBranch) || (scope === 'account' && c.sameAccount);
}

/** The documented answer to `c`; null: a write on something the caller shares, not walked. */
function expected(op: Op, c: Caller): Outcome | null {
  if (op.access === 'staff' && c.kind === 'key') return { refuse: 403, code: 'forbidden' };
  if (op.fixture.liveOnly && c.mode === 'test') return LIVE_ONLY;
  if (shares(op.fixture.scope, c)) return op.method === 'GET' ? { own: 200 } : null;
  return typeof op.fixture.outsider === 'function' ? op.fixture.outsider(c) : op.fixture.outsider;
}

const PROBLEM_MEMBERS = new Set(['type', 'title', 'status', 'detail', 'instance', 'code', 'request_id', 'errors']);

function check(res: Res, outcome: Outcome, what: string, forbidden: string[], shared: boolean): void {
  if ('refuse' in outcome) {
    assert.equal(res.status, outcome.refuse, `${what}: ${res.text}`);
    assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/, what);
    assert.equal(res.body.code, outcome.code, what);
    if (outcome.detail !== undefined) assert.match(res.body.detail, outcome.detail, what);
    assert.equal(res.body.ticket_status, undefined, `${what} must not hint at the state`);
    const extra = Object.keys(res.body).filter((k) => !PROBLEM_MEMBERS.has(k));
    assert.deepEqual(extra, [], `${what}: a refusal says nothing more than a problem does`);
    return;
  }
  assert.equal(res.status, 'own' in outcome ? outcome.own : 200, `${what}: ${res.text}`);
  if (shared) return;
  const seen = forbidden.filter((m) => res.text.includes(m));
  assert.deepEqual(seen, [], `${what} must not mention A's ${seen.join(', ')}`);
}

const statusOf = (op: Op, mode: Mode): number =>
  typeof op.fixture.owner.status === 'function' ? op.fixture.owner.status(mode) : op.fixture.owner.status;

/** A's owner: by key, or by session where only a session may call. */
async function ownerCall(w: World, op: Op, call: Call): Promise<Res> {
  const owner = op.access === 'staff' ? (op.fixture.fresh ? await w.ownerSession.fresh() : w.ownerSession) : w.owner;
  return owner.send(op.method, call.path, { body: call.body, anonymous: op.fixture.anonymous });
}

async function walk(mode: Mode): Promise<void> {
  const w = await buildWorld(t, mode);
  clock.advance(10_000); // so that a ring by the owner would be allowed: only isolation can refuse it
  const ops = operations();
  // The owner's reads find A's objects, so a 404 below is isolation and not a broken request.
  for (const op of ops.filter((o) => o.method === 'GET' && o.fixture.stream !== true)) {
    for (const call of op.fixture.calls(w.r, w.a)) {
      const res = await ownerCall(w, op, call);
      assert.equal(res.status, statusOf(op, mode), `the owner can use ${call.path}: ${res.text}`);
      for (const id of op.fixture.owner.lists?.(w.r) ?? []) assert.ok(res.text.includes(id), `the owner's ${call.path} lists ${id}`);
    }
  }

  const streamOp = ops.find((o) => o.fixture.stream === true)!;
  const streams = new Map<Caller, SseClient>();
  const ownerStream = await openSse(`${t.url}${streamOp.fixture.calls(w.r, w.a)[0]!.path}`, w.owner.headers());
  try {
    const stateBefore = await stateOf(t, w.a, mode);
    // The comparison below sees every kind of thing A has.
    for (const table of [
      'accounts',
      'branches',
      'queues',
      'api_keys',
      'users',
      'tickets',
      'rings',
      'events',
      'jobs',
      'webhook_endpoints',
      'webhook_deliveries',
      'displays',
      'announcements',
    ]) {
      assert.ok((stateBefore[table]?.length ?? 0) > 0, `A's state includes its ${table}`);
    }
    const walked = new Set<string>();
    for (const op of ops) {
      for (const c of w.callers) {
        const outcome = expected(op, c);
        if (outcome === null) continue;
        walked.add(op.route);
        const what = `${op.route} by ${c.name}`;
        const forbidden = forbiddenFor(w, c, op.fixture.accountWide === true);
        if (op.fixture.stream) {
          const sse = await openSse(`${t.url}${op.fixture.calls(w.r, c.tenant)[0]!.path}`, c.headers());
          streams.set(c, sse);
          assert.equal(sse.status, 200, what);
          const ready = (await sse.next('ready')).data;
          assert.ok(!(ready.branch === w.a.branchId && ready.livemode === (mode === 'live')), `${what} streams A's branch and mode`);
          continue;
        }
        const caller = op.fixture.fresh ? await c.fresh() : c;
        for (const call of op.fixture.calls(w.r, c.tenant)) {
          const res = await caller.send(op.method, call.path, { body: call.body, anonymous: op.fixture.anonymous });
          check(res, outcome, `${what} (${call.path})`, forbidden, shares(op.fixture.scope, c));
        }
      }
    }
    assert.deepEqual(
      ops.filter((o) => !walked.has(o.route)).map((o) => o.route),
      [],
      'every route is called by someone who does not share it',
    );
    assert.deepEqual(await stateOf(t, w.a, mode), stateBefore, 'nothing of A changed');
    for (const [id, status] of [
      [w.r.ticket, 'created'],
      [w.r.readyTicket, 'ready'],
    ] as const) {
      assert.equal((await w.owner.send('GET', `/v1/tickets/${id}`)).body.status, status);
    }

    // The same writes by the owner succeed.
    for (const op of ops.filter((o) => o.method !== 'GET')) {
      const res = await ownerCall(w, op, op.fixture.owner.call?.(w.r) ?? op.fixture.calls(w.r, w.a)[0]!);
      assert.equal(res.status, statusOf(op, mode), `the owner can use ${op.route}: ${res.text}`);
    }

    // The streams: the owner's carries A's changes; every other one, up to the caller's own
    // change made after all of A's, carries nothing of A's.
    await ownerStream.next('message', (d) => d.ticket_id === w.r.readyTicket && d.type === 'ticket.collected');
    for (const [c, sse] of streams) {
      const mine = await c.send('POST', '/v1/tickets', { body: {} });
      assert.equal(mine.status, 201, mine.text);
      await sse.next('message', (d) => d.ticket_id === mine.body.id);
      const seen = forbiddenFor(w, c, false).filter((m) => sse.all.some((e) => e.raw.includes(m)));
      assert.deepEqual(seen, [], `the stream of ${c.name} carried A's ${seen.join(', ')}`);
    }
  } finally {
    ownerStream.close();
    for (const sse of streams.values()) sse.close();
  }
}

test("a live branch's every route is closed to another branch, the test mode and another account", async () => {
  await walk('live');
});

test("a test branch's every route is closed to another branch, the live mode and another account", async () => {
  await walk('test');
});

// ---- Insights (decision 0025) -------------------------------------------------------------------
// The walk above calls them too (an intruder gets 200 with its own figures, never A's ids); here
// the figures themselves are checked: insights are counts of a branch and mode, not objects with
// an id, so an intruder's answer must count nothing of the owner's.

const INSIGHT_ROUTES = ['/v1/insights', '/v1/insights/days', '/v1/insights/hours', '/v1/insights/weekday_hours'];

async function walkInsights(owner: string, intruders: Record<string, string>): Promise<void> {
  clock.advance(3600_000);
  const tk = await createTicket(t, {
    key: owner,
    body: { external_ref: 'iso-insights', customer_phone: '+33612345678' },
    idem: `iso-${Math.random()}`,
  });
  assert.equal((await t.request('POST', `/v1/tickets/${tk.id}/ready`, { key: owner })).status, 200);
  assert.equal((await t.request('POST', `/v1/tickets/${tk.id}/collect`, { key: owner })).status, 200);
  const created = (figures: any): number => figures.created;
  const total = (body: any): number =>
    body.figures !== undefined ? created(body.figures) : body.data.reduce((n: number, e: any) => n + created(e.figures), 0);
  for (const path of INSIGHT_ROUTES) {
    const own = await t.request('GET', path, { key: owner });
    assert.equal(own.status, 200, `the owner reads ${path}`);
    assert.ok(total(own.body) >= 1, `the owner's ${path} counts the ticket`);
    for (const [who, key] of Object.entries(intruders)) {
      const res = await t.request('GET', path, { key });
      assert.equal(res.status, 200, `${path} by ${who}`);
      assert.equal(total(res.body), 0, `${path} by ${who} must not count the owner's ticket`);
      assert.ok(
        res.body.branch !== own.body.branch || res.body.livemode !== own.body.livemode,
        `${path} by ${who} is about its own branch and mode`,
      );
    }
  }
  const csv = await t.request('GET', '/v1/insights/tickets.csv', { key: owner });
  assert.ok(csv.text.includes(tk.id) && !csv.text.includes('612345678'), "the owner's export has the ticket and no phone number");
  for (const [who, key] of Object.entries(intruders)) {
    const res = await t.request('GET', '/v1/insights/tickets.csv', { key });
    assert.equal(res.status, 200, `export by ${who}`);
    assert.ok(!res.text.includes(tk.id) && !res.text.includes('iso-insights'), `export by ${who} must not hold the ticket`);
  }
}

for (const mode of ['test', 'live'] as const) {
  test(`insights and the export of ${mode} data count only the key's own branch and mode`, async () => {
    const owner = await t.newTenant();
    const sibling = await t.newTenant({ accountId: owner.accountId });
    const stranger = await t.newTenant();
    const [own, other] = mode === 'test' ? (['testKey', 'liveKey'] as const) : (['liveKey', 'testKey'] as const);
    await walkInsights(owner[own], {
      'another branch of the account': sibling[own],
      [`the ${other === 'liveKey' ? 'live' : 'test'} key of the branch`]: owner[other],
      'another account': stranger[own],
    });
  });
}
