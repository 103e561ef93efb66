// Leaving cleanly (decision 0083): the owner's export holds the account's data and nothing else
// (no password hash, no other account's rows); a deletion stops the keys and sessions at once and
// mails the owners; an owner may sign in only to export or restore within 30 days; after them
// (a fake clock) the hourly sweep erases every row of the account, and another account keeps all.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { startSmtpServer, type LocalSmtp } from '../helpers/smtp-server.ts';
import { FakeClock } from '../helpers/clock.ts';
import { asSession, signIn, signInOk } from '../helpers/session.ts';
import { ACCOUNT_TABLES, BRANCH_TABLES } from '../../src/store/account-deletion.ts';

let smtp: LocalSmtp;
let t: TestApp;
const clock = new FakeClock(Date.now());
const DAY = 24 * 3600_000;

before(async () => {
  smtp = await startSmtpServer();
  t = await startTestApp({
    clock,
    env: { SMTP_URL: smtp.url, MAIL_FROM: 'Readybell <noreply@pickup.example>', RATE_LIMIT_WRITES_BURST: '10000' },
  });
});
after(async () => {
  await t?.close();
  await smtp?.close();
});

async function ticket(key: string, ref: string): Promise<string> {
  const res = await t.request('POST', '/v1/tickets', { key, body: { external_ref: ref } });
  assert.equal(res.status, 201, res.text);
  return res.body.id;
}

const owner = async (tenant: Tenant) => asSession(t, await signInOk(t, tenant.ownerEmail, tenant.ownerPassword));

/** Every table with rows of the account: by account, by branch, or through the account's tickets. */
async function rowsOf(tenant: Tenant): Promise<Record<string, number>> {
  const db = t.app.services.db;
  const out: Record<string, number> = {};
  for (const [table, where] of BRANCH_TABLES)
    out[table] = Number((await db.query<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table} WHERE ${where}`, [tenant.branchId]))[0]!.n);
  for (const [table, where] of ACCOUNT_TABLES)
    out[table] = Number((await db.query<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table} WHERE ${where}`, [tenant.accountId]))[0]!.n);
  out.accounts = Number((await db.query<{ n: number }>('SELECT COUNT(*) AS n FROM accounts WHERE id = $1', [tenant.accountId]))[0]!.n);
  return out;
}

test('every table with an account or branch column is erased with the account', async () => {
  const db = t.app.services.db;
  const columns =
    db.dialect === 'postgres'
      ? await db.query<{ table_name: string; column_name: string }>(
          "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema() AND column_name IN ('account_id', 'branch_id')",
        )
      : await db.query<{ table_name: string; column_name: string }>(
          "SELECT m.name AS table_name, p.name AS column_name FROM sqlite_master m JOIN pragma_table_info(m.name) p WHERE m.type = 'table' AND p.name IN ('account_id', 'branch_id')",
        );
  const erased = new Set([...BRANCH_TABLES, ...ACCOUNT_TABLES].map(([table]) => table));
  const missing = [...new Set(columns.map((c) => c.table_name))].filter((table) => !erased.has(table)).sort();
  assert.deepEqual(missing, [], 'add these tables to BRANCH_TABLES or ACCOUNT_TABLES in src/store/account-deletion.ts');
});

test("the export is the account's data in one JSON download, without password hashes or another account's rows", async () => {
  const a = await t.newTenant();
  const b = await t.newTenant();
  const live = await ticket(a.liveKey, 'A-live');
  const testTicket = await ticket(a.testKey, 'A-test');
  const other = await ticket(b.liveKey, 'B-live');
  const as = await owner(a);
  const res = await as('GET', '/v1/account/export');
  assert.equal(res.status, 200, res.text);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  assert.match(
    res.headers.get('content-disposition') ?? '',
    new RegExp(`^attachment; filename="readybell-${a.accountId}-\\d{4}-\\d\\d-\\d\\d\\.json"$`),
  );
  const data = res.body;
  assert.equal(data.object, 'account_export');
  assert.equal(data.account.id, a.accountId);
  assert.deepEqual(
    data.users.map((u: { email: string }) => u.email),
    [a.ownerEmail],
  );
  assert.deepEqual(Object.keys(data.users[0]).sort(), ['created_at', 'email', 'id', 'role']);
  assert.doesNotMatch(res.text, /argon2|scrypt|password/);
  assert.equal(data.branches.length, 1);
  const [branch] = data.branches;
  assert.equal(branch.branch.id, a.branchId);
  assert.deepEqual(
    branch.queues.map((q: { name: string }) => q.name),
    ['A'],
  );
  assert.deepEqual(
    branch.live.tickets.map((x: { id: string }) => x.id),
    [live],
  );
  assert.deepEqual(
    branch.test.tickets.map((x: { id: string }) => x.id),
    [testTicket],
  );
  assert.ok(
    branch.live.events.some(
      (e: { type: string; data: { object: { id: string } } }) => e.type === 'ticket.created' && e.data.object.id === live,
    ),
  );
  assert.ok(!res.text.includes(other) && !res.text.includes(b.accountId) && !res.text.includes(b.branchId));
  // Staff and API keys get 403.
  assert.equal((await t.request('GET', '/v1/account/export', { key: a.liveKey })).status, 403);
});

test('the export is streamed a page at a time: 250 tickets arrive whole, in order', async () => {
  const a = await t.newTenant();
  const ids: string[] = [];
  for (let i = 0; i < 250; i++) ids.push(await ticket(a.testKey, `r${i}`));
  const res = await (await owner(a))('GET', '/v1/account/export');
  assert.equal(res.status, 200);
  assert.deepEqual(
    res.body.branches[0].test.tickets.map((x: { id: string }) => x.id),
    ids.reverse(),
  );
});

test('a deletion stops keys and sessions at once; an owner may only export or restore, and a restore brings everything back', async () => {
  const a = await t.newTenant();
  const b = await t.newTenant();
  await ticket(a.liveKey, 'before');
  const as = await owner(a);
  const wrong = await as('DELETE', '/v1/account', { body: { name: 'Not the name' } });
  assert.equal(wrong.status, 422);
  assert.equal(wrong.body.errors[0].pointer, '/name');
  const account = (await as('GET', '/v1/account')).body;
  assert.equal(account.deletion_requested_at, null);
  const deleted = await as('DELETE', '/v1/account', { body: { name: account.name } });
  assert.equal(deleted.status, 200, deleted.text);
  assert.equal(Date.parse(deleted.body.erase_at) - Date.parse(deleted.body.deletion_requested_at), 30 * DAY);
  // At once: the keys (cached by the auth plugin a moment ago) and the session that deleted it.
  assert.equal((await t.request('POST', '/v1/tickets', { key: a.liveKey, body: {} })).status, 401);
  assert.equal((await t.request('GET', '/v1/tickets', { key: a.testKey })).status, 401);
  assert.equal((await as('GET', '/v1/session')).status, 401);
  // Another account is untouched.
  assert.equal((await t.request('GET', '/v1/tickets', { key: b.liveKey })).status, 200);
  // The owners are told, and the job billing hangs the subscription's cancellation on has run.
  assert.equal((await t.app.runner.runOnce()) >= 2, true);
  await smtp.waitFor(1);
  const mail = smtp.only(a.ownerEmail);
  assert.match(mail.subject ?? '', /^Test \d+ will be deleted from readybell$/);
  const erase = new Date(Date.parse(deleted.body.erase_at)).toISOString().slice(0, 10);
  assert.ok((mail.text ?? '').includes(erase));
  const jobs = await t.app.services.db.query<{ done_at: number | null }>(
    "SELECT done_at FROM jobs WHERE kind = 'account.deletion_requested' AND account_id = $1",
    [a.accountId],
  );
  assert.equal(jobs.length, 1);
  assert.notEqual(jobs[0]!.done_at, null);
  // The owner signs in again: export and restore, nothing else.
  const back = await signInOk(t, a.ownerEmail, a.ownerPassword);
  assert.notEqual(back.body.account.deletion_requested_at, null);
  const again = asSession(t, back);
  assert.equal((await again('GET', '/v1/branch')).status, 403);
  assert.equal((await again('GET', '/v1/account/export')).status, 200);
  assert.equal((await again('DELETE', '/v1/account', { body: { name: account.name } })).status, 403);
  clock.advance(29 * DAY);
  const late = asSession(t, await signInOk(t, a.ownerEmail, a.ownerPassword));
  const restored = await late('POST', '/v1/account/restore');
  assert.equal(restored.status, 200, restored.text);
  assert.equal(restored.body.deletion_requested_at, null);
  assert.equal((await late('GET', '/v1/branch')).status, 200);
  assert.equal((await t.request('POST', '/v1/tickets', { key: a.liveKey, body: {} })).status, 201);
  assert.equal((await late('POST', '/v1/account/restore')).status, 409);
});

test('after 30 days the sweep erases every row of the account; a restore is too late; other accounts keep theirs', async () => {
  const a = await t.newTenant();
  const b = await t.newTenant();
  await ticket(a.liveKey, 'gone');
  await ticket(a.testKey, 'gone too');
  await ticket(b.liveKey, 'kept');
  const as = await owner(a);
  const name = (await as('GET', '/v1/account')).body.name;
  await as('POST', '/v1/invitations', { body: { email: `invitee-${a.branchId}@example.test`, role: 'staff' } });
  assert.equal((await as('DELETE', '/v1/account', { body: { name } })).status, 200);
  await t.app.runner.runOnce();
  const before = await rowsOf(a);
  assert.ok(before.tickets === 2 && (before.events ?? 0) >= 2 && before.users === 1 && before.invitations === 1 && before.accounts === 1);
  const kept = await rowsOf(b);
  await t.app.maintenance.sweep();
  assert.equal((await rowsOf(a)).accounts, 1, 'nothing goes before the 30 days');
  clock.advance(30 * DAY);
  const late = await signIn(t, a.ownerEmail, a.ownerPassword);
  const restore = await asSession(t, late)('POST', '/v1/account/restore');
  assert.equal(restore.status, 409, 'too late to restore');
  await t.app.maintenance.sweep();
  const after = await rowsOf(a);
  assert.deepEqual(
    Object.entries(after).filter(([, n]) => n !== 0),
    [],
    'every row of the account is gone',
  );
  assert.deepEqual(await rowsOf(b), kept);
  assert.equal((await signIn(t, a.ownerEmail, a.ownerPassword)).status, 401);
  assert.equal((await t.request('GET', '/v1/tickets', { key: b.liveKey })).status, 200);
});
