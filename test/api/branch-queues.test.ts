// GET/PATCH /v1/branch and the queue routes (PRODUCT.md §3). Branch settings and queues are
// configuration shared by both modes of a branch (docs/decisions/0003-modes-and-tenancy.md);
// their tickets are not.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type Res, type TestApp, type Tenant } from '../helpers/app.ts';
import { asSession, signInOk } from '../helpers/session.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

function assertProblem(res: Res, status: number, code: string, pointer?: string): void {
  assert.equal(res.status, status, res.text);
  assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
  assert.equal(res.body.code, code);
  if (pointer !== undefined)
    assert.ok(
      res.body.errors?.some((e: { pointer: string }) => e.pointer === pointer),
      res.text,
    );
}

const names = (res: Res): string[] => res.body.data.map((q: { name: string }) => q.name);

test("GET /v1/branch answers the key's branch with its settings", async () => {
  const res = await t.request('GET', '/v1/branch');
  assert.equal(res.status, 200);
  const b = res.body;
  assert.equal(b.object, 'branch');
  assert.equal(b.id, t.tenant.branchId);
  assert.equal(b.account, t.tenant.accountId);
  assert.equal(b.plan, 'pro');
  assert.equal(b.timezone, 'UTC');
  assert.equal(b.default_queue, 'A');
  assert.equal(typeof b.expiry_hours, 'number');
  assert.deepEqual(Object.keys(b.voice).sort(), ['enabled', 'language']);
  assert.deepEqual(Object.keys(b.customer_page.messages).sort(), ['closed', 'ready', 'waiting']);
  assert.match(b.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
});

test('PATCH /v1/branch changes name and IANA timezone; both modes see the change', async () => {
  const tenant = await t.newTenant();
  const res = await t.request('PATCH', '/v1/branch', { key: tenant.liveKey, body: { name: 'Rue de Rivoli', timezone: 'Europe/Paris' } });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.name, 'Rue de Rivoli');
  assert.equal(res.body.timezone, 'Europe/Paris');
  const seen = await t.request('GET', '/v1/branch', { key: tenant.testKey });
  assert.equal(seen.body.name, 'Rue de Rivoli');
  assert.equal(seen.body.timezone, 'Europe/Paris');
  assert.ok(seen.body.updated_at >= seen.body.created_at);
});

test('branch settings shape live tickets: a test key or test mode reads them and gets 403 naming the live key when it writes them', async () => {
  const tenant = await t.newTenant();
  const before = (await t.request('GET', '/v1/branch', { key: tenant.liveKey })).body;
  const owner = asSession(t, await signInOk(t, tenant.ownerEmail, tenant.ownerPassword));
  const TEST = { 'readybell-mode': 'test' };
  for (const [who, res] of [
    [
      'test key',
      await t.request('PATCH', '/v1/branch', {
        key: tenant.testKey,
        body: { expiry_hours: 1, customer_page: { messages: { ready: 'x' } } },
      }),
    ],
    ['test mode', await owner('PATCH', '/v1/branch', { headers: TEST, body: { name: 'Test rename' } })],
    ['default queue, test key', await t.request('PATCH', '/v1/queues/A', { key: tenant.testKey, body: { is_default: true } })],
  ] as const) {
    assertProblem(res, 403, 'forbidden');
    assert.match(res.body.detail, /use the live key \(rk_live_…\)/, who);
  }
  assert.deepEqual(
    (await t.request('GET', '/v1/branch', { key: tenant.testKey })).body,
    before,
    'the test key still reads them; nothing changed',
  );
  assert.equal((await owner('GET', '/v1/branch', { headers: TEST })).status, 200);
  // Queues stay shared configuration (decision 0003): a test key may still add one.
  assert.equal((await t.request('POST', '/v1/queues', { key: tenant.testKey, body: { name: 'T' } })).status, 201);
  assert.equal((await owner('PATCH', '/v1/branch', { body: { name: 'Live rename' } })).status, 200);
  assert.equal((await t.request('PATCH', '/v1/branch', { key: tenant.liveKey, body: { expiry_hours: 2 } })).status, 200);
});

test('PATCH /v1/branch refuses what is not an IANA time zone', async () => {
  for (const timezone of ['Mars/Olympus_Mons', 'Europe/Pariss', 'not a zone', '']) {
    assertProblem(
      await t.request('PATCH', '/v1/branch', { key: t.tenant.liveKey, body: { timezone } }),
      422,
      'validation-failed',
      '/timezone',
    );
  }
  assert.equal((await t.request('GET', '/v1/branch')).body.timezone, 'UTC');
});

test('PATCH /v1/branch: default_queue must be an existing queue of this branch', async () => {
  const tenant = await t.newTenant();
  assertProblem(
    await t.request('PATCH', '/v1/branch', { key: tenant.liveKey, body: { default_queue: 'NOPE' } }),
    422,
    'validation-failed',
    '/default_queue',
  );
  assertProblem(
    await t.request('PATCH', '/v1/branch', { key: tenant.liveKey, body: { default_queue: 'bad-name' } }),
    422,
    'validation-failed',
    '/default_queue',
  );
  assert.equal((await t.request('POST', '/v1/queues', { key: tenant.testKey, body: { name: 'Drinks' } })).status, 201);
  const res = await t.request('PATCH', '/v1/branch', { key: tenant.liveKey, body: { default_queue: 'Drinks' } });
  assert.equal(res.status, 200);
  assert.equal(res.body.default_queue, 'Drinks');
  // A create without a queue now lands in the new default.
  assert.equal((await t.request('POST', '/v1/tickets', { key: tenant.liveKey, body: {} })).body.display_number, 'Drinks-1');
});

test('PATCH /v1/branch: voice and customer page languages must be supported ones', async () => {
  assertProblem(
    await t.request('PATCH', '/v1/branch', { key: t.tenant.liveKey, body: { voice: { language: 'xx' } } }),
    422,
    'validation-failed',
    '/voice/language',
  );
  assertProblem(
    await t.request('PATCH', '/v1/branch', { key: t.tenant.liveKey, body: { customer_page: { language: 'klingon' } } }),
    422,
    'validation-failed',
    '/customer_page/language',
  );
  const res = await t.request('PATCH', '/v1/branch', {
    key: t.tenant.liveKey,
    body: { voice: { language: 'fr' }, customer_page: { language: 'de' } },
  });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.voice.language, 'fr');
  assert.equal(res.body.customer_page.language, 'de');
});

test('PATCH /v1/branch merges nested settings instead of replacing them', async () => {
  const tenant = await t.newTenant();
  const k = { key: tenant.liveKey };
  await t.request('PATCH', '/v1/branch', {
    ...k,
    body: { voice: { enabled: false }, customer_page: { messages: { waiting: 'Thanks!', ready: 'Come get it' } } },
  });
  const res = await t.request('PATCH', '/v1/branch', {
    ...k,
    body: { voice: { language: 'es' }, customer_page: { messages: { ready: null } }, expiry_hours: 6 },
  });
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(res.body.voice, { enabled: false, language: 'es' });
  assert.deepEqual(res.body.customer_page.messages, { waiting: 'Thanks!', ready: null, closed: null });
  assert.equal(res.body.expiry_hours, 6);
  assert.deepEqual((await t.request('GET', '/v1/branch', k)).body, res.body);
});

test('PATCH /v1/branch validates ranges and types, and changes nothing when refused', async () => {
  const tenant = await t.newTenant();
  const k = { key: tenant.liveKey };
  const before = (await t.request('GET', '/v1/branch', k)).body;
  assertProblem(await t.request('PATCH', '/v1/branch', { ...k, body: { name: '' } }), 422, 'validation-failed', '/name');
  assertProblem(await t.request('PATCH', '/v1/branch', { ...k, body: { expiry_hours: 0 } }), 422, 'validation-failed', '/expiry_hours');
  assertProblem(
    await t.request('PATCH', '/v1/branch', { ...k, body: { voice: { enabled: 'yes' } } }),
    422,
    'validation-failed',
    '/voice/enabled',
  );
  assertProblem(
    await t.request('PATCH', '/v1/branch', { ...k, body: { customer_page: { messages: { waiting: 'x'.repeat(281) } } } }),
    422,
    'validation-failed',
    '/customer_page/messages/waiting',
  );
  // One bad field refuses the whole patch: the valid name is not applied either.
  assertProblem(
    await t.request('PATCH', '/v1/branch', { ...k, body: { name: 'New name', timezone: 'Nowhere/Land' } }),
    422,
    'validation-failed',
    '/timezone',
  );
  assert.deepEqual((await t.request('GET', '/v1/branch', k)).body, before);
});

test("another branch's key cannot see or change this branch", async () => {
  const a = await t.newTenant();
  const b = await t.newTenant();
  await t.request('PATCH', '/v1/branch', { key: b.liveKey, body: { name: 'B only' } });
  const ga = await t.request('GET', '/v1/branch', { key: a.liveKey });
  assert.equal(ga.body.id, a.branchId);
  assert.notEqual(ga.body.name, 'B only');
});

test('GET /v1/queues lists the queues with the default marked', async () => {
  const res = await t.request('GET', '/v1/queues');
  assert.equal(res.status, 200);
  assert.equal(res.body.object, 'list');
  assert.equal(res.body.has_more, false);
  assert.equal(res.body.data.length, 1);
  const q = res.body.data[0];
  assert.deepEqual(
    { ...q, created_at: undefined },
    { object: 'queue', name: 'A', is_default: true, open_tickets: 0, created_at: undefined },
  );
});

test('POST /v1/queues creates a queue shared by both modes; open_tickets counts per mode', async () => {
  const tenant = await t.newTenant();
  const res = await t.request('POST', '/v1/queues', { key: tenant.testKey, body: { name: 'Pizza_2' } });
  assert.equal(res.status, 201, res.text);
  assert.deepEqual([res.body.object, res.body.name, res.body.is_default, res.body.open_tickets], ['queue', 'Pizza_2', false, 0]);
  assert.deepEqual(names(await t.request('GET', '/v1/queues', { key: tenant.liveKey })), ['A', 'Pizza_2']);

  await t.request('POST', '/v1/tickets', { key: tenant.liveKey, body: { queue: 'Pizza_2' } });
  const live = (await t.request('GET', '/v1/queues', { key: tenant.liveKey })).body.data.find(
    (q: { name: string }) => q.name === 'Pizza_2',
  );
  const test2 = (await t.request('GET', '/v1/queues', { key: tenant.testKey })).body.data.find(
    (q: { name: string }) => q.name === 'Pizza_2',
  );
  assert.equal(live.open_tickets, 1);
  assert.equal(test2.open_tickets, 0);
});

test('POST /v1/queues: names are 1–16 letters, digits or _; duplicates are 409', async () => {
  const tenant = await t.newTenant();
  const k = { key: tenant.testKey };
  assert.equal((await t.request('POST', '/v1/queues', { ...k, body: { name: 'x'.repeat(16) } })).status, 201);
  for (const name of ['', 'x'.repeat(17), 'a-b', 'a b', 'café', 'A/B', '../A']) {
    assertProblem(await t.request('POST', '/v1/queues', { ...k, body: { name } }), 422, 'validation-failed', '/name');
  }
  assertProblem(await t.request('POST', '/v1/queues', { ...k, body: {} }), 422, 'validation-failed', '/name');
  assertProblem(await t.request('POST', '/v1/queues', { ...k, body: { name: 'B', colour: 'red' } }), 422, 'validation-failed', '/colour');
  assert.equal((await t.request('POST', '/v1/queues', { ...k, body: { name: 'B' } })).status, 201);
  assertProblem(await t.request('POST', '/v1/queues', { key: tenant.liveKey, body: { name: 'B' } }), 409, 'conflict', '/name');
  assertProblem(await t.request('POST', '/v1/queues', { ...k, body: { name: 'A' } }), 409, 'conflict');
  assert.deepEqual(names(await t.request('GET', '/v1/queues', k)), ['A', 'B', 'x'.repeat(16)]);
});

test('PATCH /v1/queues/{name} renames, moves the default, and refuses what would break numbering', async () => {
  const tenant = await t.newTenant();
  const k = { key: tenant.testKey };
  await t.request('POST', '/v1/queues', { ...k, body: { name: 'B' } });
  const renamed = await t.request('PATCH', '/v1/queues/B', { ...k, body: { name: 'Bar' } });
  assert.equal(renamed.status, 200, renamed.text);
  assert.equal(renamed.body.name, 'Bar');
  assert.deepEqual(names(await t.request('GET', '/v1/queues', k)), ['A', 'Bar']);

  assertProblem(await t.request('PATCH', '/v1/queues/Bar', { ...k, body: { name: 'A' } }), 409, 'conflict', '/name');
  assertProblem(await t.request('PATCH', '/v1/queues/Bar', { ...k, body: { name: 'no way' } }), 422, 'validation-failed', '/name');
  assertProblem(await t.request('PATCH', '/v1/queues/Nope', { ...k, body: { name: 'X' } }), 404, 'not-found');

  const made = await t.request('PATCH', '/v1/queues/Bar', { key: tenant.liveKey, body: { is_default: true } });
  assert.equal(made.body.is_default, true);
  assert.equal((await t.request('GET', '/v1/branch', { key: tenant.liveKey })).body.default_queue, 'Bar');
  assertProblem(
    await t.request('PATCH', '/v1/queues/Bar', { key: tenant.liveKey, body: { is_default: false } }),
    422,
    'validation-failed',
    '/is_default',
  );

  // Renaming the default carries the default along.
  const moved = await t.request('PATCH', '/v1/queues/Bar', { ...k, body: { name: 'Counter' } });
  assert.equal(moved.body.is_default, true);
  assert.equal((await t.request('GET', '/v1/branch', k)).body.default_queue, 'Counter');

  // An open ticket in either mode pins the name: its display number carries it.
  await t.request('POST', '/v1/tickets', { key: tenant.liveKey, body: { queue: 'Counter' } });
  assertProblem(await t.request('PATCH', '/v1/queues/Counter', { ...k, body: { name: 'Other' } }), 409, 'conflict');
});

test('DELETE /v1/queues/{name}: only a non-default queue with no open ticket in either mode', async () => {
  const tenant = await t.newTenant();
  const k = { key: tenant.testKey };
  await t.request('POST', '/v1/queues', { ...k, body: { name: 'Temp' } });
  await t.request('POST', '/v1/queues', { ...k, body: { name: 'Busy' } });

  const del = await t.request('DELETE', '/v1/queues/Temp', k);
  assert.equal(del.status, 200, del.text);
  assert.deepEqual(del.body, { object: 'queue', name: 'Temp', deleted: true });
  assert.deepEqual(names(await t.request('GET', '/v1/queues', k)), ['A', 'Busy']);
  assertProblem(await t.request('DELETE', '/v1/queues/Temp', k), 404, 'not-found');
  assertProblem(await t.request('POST', '/v1/tickets', { ...k, body: { queue: 'Temp' } }), 422, 'validation-failed');

  assertProblem(await t.request('DELETE', '/v1/queues/A', k), 409, 'conflict');

  const live = await t.request('POST', '/v1/tickets', { key: tenant.liveKey, body: { queue: 'Busy' } });
  const refused = await t.request('DELETE', '/v1/queues/Busy', k);
  assertProblem(refused, 409, 'conflict');
  assert.doesNotMatch(refused.body.detail, /\d/, 'the test key learns no live ticket count');
  await t.request('POST', `/v1/tickets/${live.body.id}/collect`, { key: tenant.liveKey });
  assert.equal((await t.request('DELETE', '/v1/queues/Busy', k)).status, 200);
});

test("another branch's key cannot see, change or delete this branch's queues", async () => {
  const a: Tenant = await t.newTenant();
  const b: Tenant = await t.newTenant();
  await t.request('POST', '/v1/queues', { key: a.testKey, body: { name: 'Secret' } });
  assert.deepEqual(names(await t.request('GET', '/v1/queues', { key: b.testKey })), ['A']);
  assertProblem(await t.request('PATCH', '/v1/queues/Secret', { key: b.testKey, body: { name: 'Mine' } }), 404, 'not-found');
  assertProblem(await t.request('PATCH', '/v1/queues/Secret', { key: b.liveKey, body: { is_default: true } }), 404, 'not-found');
  assertProblem(await t.request('DELETE', '/v1/queues/Secret', { key: b.liveKey }), 404, 'not-found');
  assertProblem(
    await t.request('PATCH', '/v1/branch', { key: b.liveKey, body: { default_queue: 'Secret' } }),
    422,
    'validation-failed',
    '/default_queue',
  );
  assertProblem(await t.request('POST', '/v1/tickets', { key: b.testKey, body: { queue: 'Secret' } }), 422, 'validation-failed');
  // B may have its own queue of the same name: names are per branch.
  assert.equal((await t.request('POST', '/v1/queues', { key: b.testKey, body: { name: 'Secret' } })).status, 201);
  assert.equal((await t.request('DELETE', '/v1/queues/Secret', { key: b.testKey })).status, 200);
  assert.deepEqual(names(await t.request('GET', '/v1/queues', { key: a.liveKey })), ['A', 'Secret']);
});
