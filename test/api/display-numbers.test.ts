// Display numbers (PRODUCT.md §2): per queue, branch and mode; restarting at the branch's local
// midnight; never two open tickets with the same number, even under concurrent creates.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { FakeClock } from '../helpers/clock.ts';
import { storeName } from '../helpers/store.ts';
import { createTicket } from '../helpers/tickets.ts';
import { newId } from '../../src/domain/ids.ts';

const clock = new FakeClock();
let t: TestApp;
before(async () => {
  // 200 creates in one burst from one key: the write bucket is raised by configuration.
  t = await startTestApp({ clock, env: { RATE_LIMIT_WRITES_BURST: '1000' } });
});
after(() => t.close());

async function openDuplicates(branchId: string): Promise<unknown[]> {
  return t.app.services.db.query(
    'SELECT mode, queue, number, COUNT(*) AS n FROM tickets WHERE branch_id = $1 AND closed_at IS NULL GROUP BY mode, queue, number HAVING COUNT(*) > 1',
    [branchId],
  );
}

test('200 concurrent creates on one queue get 200 distinct numbers, 1 to 200', async () => {
  const tenant = await t.newTenant();
  const started = performance.now();
  const results = await Promise.all(
    Array.from({ length: 200 }, () => t.request('POST', '/v1/tickets', { key: tenant.testKey, body: { queue: 'A' } })),
  );
  const ms = performance.now() - started;
  assert.deepEqual([...new Set(results.map((r) => r.status))], [201]);
  const numbers = results.map((r) => Number(r.body.display_number.slice(2))).sort((a, b) => a - b);
  assert.deepEqual(
    numbers,
    Array.from({ length: 200 }, (_, i) => i + 1),
  );
  assert.deepEqual(await openDuplicates(tenant.branchId), []);
  console.log(
    `# display numbers [${storeName}]: 200 concurrent creates on one queue in ${ms.toFixed(0)} ms, numbers 1..200, no duplicates`,
  );
});

test("numbers restart at the branch's local midnight, not at UTC midnight", async () => {
  const tenant = await t.newTenant({ timezone: 'Europe/Paris' });
  const key = tenant.testKey;
  const num = async () => (await createTicket(t, { key })).display_number;
  // 2026-11-22 is in CET (UTC+1): local midnight is 23:00 UTC.
  clock.set(Date.parse('2026-11-22T22:30:00.000Z'));
  const first = [await num(), await num()];
  clock.set(Date.parse('2026-11-22T22:59:59.999Z'));
  first.push(await num());
  assert.deepEqual(first, ['A-1', 'A-2', 'A-3']);
  const open = await t.request('GET', '/v1/tickets?status=created', { key });
  for (const tk of open.body.data) await t.request('POST', `/v1/tickets/${tk.id}/collect`, { key });

  clock.set(Date.parse('2026-11-22T23:00:00.000Z'));
  assert.equal(await num(), 'A-1');
  clock.set(Date.parse('2026-11-23T00:30:00.000Z')); // UTC midnight passed; same Paris day
  assert.equal(await num(), 'A-2');
  clock.set(Date.parse('2026-11-23T22:59:00.000Z'));
  assert.equal(await num(), 'A-3');
});

test('a ticket open across midnight keeps its number and the new day skips it', async () => {
  const tenant = await t.newTenant({ timezone: 'Europe/Paris' });
  const key = tenant.testKey;
  clock.set(Date.parse('2026-12-01T22:00:00.000Z'));
  const held = await createTicket(t, { key }); // A-1, stays open
  const done = await createTicket(t, { key }); // A-2, collected before midnight
  const held3 = await createTicket(t, { key }); // A-3, stays open
  assert.deepEqual([held.display_number, done.display_number, held3.display_number], ['A-1', 'A-2', 'A-3']);
  await t.request('POST', `/v1/tickets/${done.id}/collect`, { key });

  clock.set(Date.parse('2026-12-01T23:30:00.000Z'));
  const next = [];
  for (let i = 0; i < 3; i++) next.push((await createTicket(t, { key })).display_number);
  assert.deepEqual(next, ['A-2', 'A-4', 'A-5']);
  assert.equal((await t.request('GET', `/v1/tickets/${held.id}`, { key })).body.display_number, 'A-1');
  assert.deepEqual(await openDuplicates(tenant.branchId), []);
});

test('a new day after a busy evening: twelve numbers still open are skipped, and every create is answered', async () => {
  const tenant = await t.newTenant({ timezone: 'Europe/Paris' });
  const key = tenant.testKey;
  clock.set(Date.parse('2026-12-02T22:00:00.000Z'));
  for (let i = 0; i < 12; i++) await createTicket(t, { key }); // A-1 … A-12, all still open at midnight
  clock.set(Date.parse('2026-12-02T23:30:00.000Z'));
  assert.equal((await createTicket(t, { key })).display_number, 'A-13');
  assert.deepEqual(await openDuplicates(tenant.branchId), []);
});

test('numbers count per queue and per mode', async () => {
  const tenant = await t.newTenant();
  assert.equal((await t.request('POST', '/v1/queues', { key: tenant.testKey, body: { name: 'B' } })).status, 201);
  const num = async (key: string, queue: string) => (await createTicket(t, { key, body: { queue } })).display_number;
  const { testKey, liveKey } = tenant;
  assert.deepEqual(
    [
      await num(testKey, 'A'),
      await num(testKey, 'B'),
      await num(liveKey, 'A'),
      await num(testKey, 'A'),
      await num(liveKey, 'B'),
      await num(liveKey, 'A'),
    ],
    ['A-1', 'B-1', 'A-1', 'A-2', 'B-1', 'A-2'],
  );
  // Another branch counts on its own.
  const other = await t.newTenant();
  assert.equal(await num(other.testKey, 'A'), 'A-1');
});

test('the store itself refuses two open tickets with one number', async () => {
  const tenant = await t.newTenant();
  const a = await createTicket(t, { key: tenant.testKey });
  const copy = (await t.app.services.db.query<Record<string, unknown>>('SELECT * FROM tickets WHERE id = $1', [a.id]))[0]!;
  const cols = Object.keys(copy);
  const values = cols.map((c) => (c === 'id' ? newId('ticket') : c === 'token' ? 'DUPLICATETOKEN' : copy[c]));
  await assert.rejects(
    t.app.services.db.write((tx) =>
      tx.run(`INSERT INTO tickets (${cols.join(', ')}) VALUES (${cols.map((_, i) => `$${i + 1}`).join(', ')})`, values),
    ),
  );
});
