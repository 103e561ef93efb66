// The world the isolation walk (test/api/isolation.test.ts) runs in: branch A with one of
// everything the API manages, in one mode; the callers that must not reach it (another branch of
// the account, A's other mode, another account; by API key and by staff session); what of A's
// may never appear in their answers; and A's state as the store holds it, to compare.
import assert from 'node:assert/strict';
import type { Res, Tenant, TestApp } from './app.ts';
import { asSession, type Signed } from './session.ts';

export type Mode = 'live' | 'test';

export type Caller = {
  name: string;
  kind: 'key' | 'session';
  mode: Mode;
  /** Whose caller it is: its tenant (branch and owner user). */
  tenant: Tenant;
  sameAccount: boolean;
  sameBranch: boolean;
  /** Sends a request with the caller's credentials (none when `anonymous`). */
  send(method: string, path: string, o?: { body?: unknown; anonymous?: boolean }): Promise<Res>;
  /** A session of its own for this one request (sign-out ends the session it is sent with). */
  fresh(): Promise<Caller>;
  /** Headers that authenticate the caller, for a stream opened by hand. */
  headers(): Record<string, string>;
};

/** One of everything A has: what the fixtures name in their requests. */
export type Resources = {
  branch: string;
  /** created and ready: every ticket route is walked in both states. */
  ticket: string;
  readyTicket: string;
  ref: string;
  event: string;
  queue: string;
  renameQueue: string;
  dropQueue: string;
  endpoint: string;
  delivery: string;
  display: string;
  announcement: string;
  staffUser: string;
  staffEmail: string;
  apiKey: string;
  invitation: string;
};

/** What of A's may never appear in an answer to a caller, by how widely A shares it. */
export type Markers = {
  /** Data of A's mode: no caller shares it. */
  mode: string[];
  /** Configuration shared by both modes of A's branch (decision 0003): queues, API keys. */
  branch: string[];
  /** What the whole account sees: A's branch id, its users. */
  account: string[];
};

export type World = { mode: Mode; a: Tenant; owner: Caller; ownerSession: Caller; callers: Caller[]; r: Resources; markers: Markers };

const other = (mode: Mode): Mode => (mode === 'live' ? 'test' : 'live');
const rand = (): string => Math.random().toString(36).slice(2, 8);
/** Queue names: 1–16 letters, digits or _, and unique to one walk. */
export const uniqueQueue = (): string => `Q${rand()}${rand()}`.slice(0, 16);
export const uniqueEmail = (): string => `iso-${rand()}${rand()}@example.test`;

function keyCaller(t: TestApp, name: string, tenant: Tenant, mode: Mode, a: Tenant): Caller {
  const key = mode === 'live' ? tenant.liveKey : tenant.testKey;
  const caller: Caller = {
    name,
    kind: 'key',
    mode,
    tenant,
    sameAccount: tenant.accountId === a.accountId,
    sameBranch: tenant.branchId === a.branchId,
    send: (method, path, o = {}) => t.request(method, path, { key: o.anonymous ? null : key, body: o.body }),
    fresh: async () => caller,
    headers: () => ({ authorization: `Bearer ${key}` }),
  };
  return caller;
}

/** Signs the tenant's owner in on the tenant's own branch (without `branch`, sign-in picks the account's first). */
async function signInOnBranch(t: TestApp, tenant: Tenant): Promise<Signed> {
  const res = await t.request('POST', '/v1/sessions', {
    key: null,
    body: { email: tenant.ownerEmail, password: tenant.ownerPassword, branch: tenant.branchId },
  });
  assert.equal(res.status, 201, res.text);
  assert.equal(res.body.branch.id, tenant.branchId);
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0]!;
  return {
    status: res.status,
    headers: res.headers,
    cookie,
    setCookie: res.headers.get('set-cookie')!,
    csrf: res.body.csrf_token,
    body: res.body,
  };
}

async function sessionCaller(t: TestApp, name: string, tenant: Tenant, mode: Mode, a: Tenant): Promise<Caller> {
  const modeHeader: Record<string, string> = mode === 'test' ? { 'readybell-mode': 'test' } : {};
  const make = (signed: Signed): Caller => ({
    name,
    kind: 'session',
    mode,
    tenant,
    sameAccount: tenant.accountId === a.accountId,
    sameBranch: tenant.branchId === a.branchId,
    send: (method, path, o = {}) =>
      o.anonymous
        ? t.request(method, path, { key: null, body: o.body, headers: modeHeader })
        : asSession(t, signed)(method, path, { body: o.body, headers: modeHeader }),
    fresh: async () => make(await signInOnBranch(t, tenant)),
    headers: () => ({ cookie: signed.cookie, ...modeHeader }),
  });
  return make(await signInOnBranch(t, tenant));
}

async function ok(res: Promise<Res>, status: number, what: string): Promise<any> {
  const r = await res;
  assert.equal(r.status, status, `${what}: ${r.text}`);
  return r.body;
}

/** A (in `mode`) with everything in it, a sibling branch of A's account, and another account. */
export async function buildWorld(t: TestApp, mode: Mode): Promise<World> {
  const a = await t.newTenant();
  const sibling = await t.newTenant({ accountId: a.accountId });
  const stranger = await t.newTenant();
  const owner = keyCaller(t, "the owner's key", a, mode, a);
  const ownerSession = await sessionCaller(t, "the owner's session", a, mode, a);
  const callers = [
    keyCaller(t, 'a key of another branch of the account', sibling, mode, a),
    keyCaller(t, `the ${other(mode)} key of the branch`, a, other(mode), a),
    keyCaller(t, 'a key of another account', stranger, mode, a),
    await sessionCaller(t, 'a session on another branch of the account', sibling, mode, a),
    await sessionCaller(t, `a session on the branch in ${other(mode)} mode`, a, other(mode), a),
    await sessionCaller(t, 'a session of another account', stranger, mode, a),
  ];

  const queues = { queue: uniqueQueue(), renameQueue: uniqueQueue(), dropQueue: uniqueQueue() };
  for (const name of Object.values(queues)) await ok(owner.send('POST', '/v1/queues', { body: { name } }), 201, 'queue');
  // Before the tickets, so that their events are delivered to it.
  const endpoint = (
    await ok(owner.send('POST', '/v1/webhook_endpoints', { body: { url: 'https://93.184.216.34/readybell' } }), 201, 'endpoint')
  ).id;
  const ref = `iso-${rand()}`;
  const ticket = (
    await ok(
      owner.send('POST', '/v1/tickets', { body: { queue: queues.queue, external_ref: ref, customer_phone: '+33612345678' } }),
      201,
      'ticket',
    )
  ).id;
  const readyTicket = (
    await ok(owner.send('POST', '/v1/tickets', { body: { queue: queues.queue, customer_phone: '+33612345679' } }), 201, 'ticket')
  ).id;
  await ok(owner.send('POST', `/v1/tickets/${readyTicket}/ready`), 200, 'ready');
  const events = await ok(owner.send('GET', '/v1/events?limit=100'), 200, 'events');
  const event = events.data.find((e: any) => e.data.object.id === ticket).id;
  const delivery = (await ok(owner.send('GET', `/v1/webhook_endpoints/${endpoint}/deliveries`), 200, 'deliveries')).data[0].id;
  const display = (await ok(owner.send('POST', '/v1/displays', { body: { name: 'Counter TV', queues: [queues.queue] } }), 201, 'display'))
    .id;
  const announcement = (await ok(owner.send('POST', '/v1/announcements', { body: { message: 'Ten minutes late' } }), 201, 'announcement'))
    .id;
  const staffEmail = uniqueEmail();
  const staffUser = (await ok(ownerSession.send('POST', '/v1/users', { body: { email: staffEmail, role: 'staff' } }), 201, 'user')).id;
  const apiKey = (await ok(ownerSession.send('POST', '/v1/api_keys', { body: { mode, name: 'Till 2' } }), 201, 'key')).id;
  const invitation = (
    await ok(ownerSession.send('POST', '/v1/invitations', { body: { email: uniqueEmail(), role: 'staff' } }), 201, 'invitation')
  ).id;

  const r: Resources = {
    branch: a.branchId,
    ticket,
    readyTicket,
    ref,
    event,
    ...queues,
    endpoint,
    delivery,
    display,
    announcement,
    staffUser,
    staffEmail,
    apiKey,
    invitation,
  };
  const markers: Markers = {
    mode: [ticket, readyTicket, ref, event, endpoint, delivery, display, announcement],
    branch: [...Object.values(queues), apiKey],
    account: [a.branchId, staffUser, staffEmail, a.ownerEmail, invitation],
  };
  return { mode, a, owner, ownerSession, callers, r, markers };
}

type Row = Record<string, unknown>;

async function tables(t: TestApp): Promise<Map<string, string[]>> {
  const db = t.app.services.db;
  const rows =
    db.dialect === 'postgres'
      ? await db.query<{ t: string; c: string }>(
          'SELECT table_name AS t, column_name AS c FROM information_schema.columns WHERE table_schema = current_schema()',
        )
      : await db.query<{ t: string; c: string }>(
          "SELECT m.name AS t, p.name AS c FROM sqlite_master m, pragma_table_info(m.name) p WHERE m.type = 'table'",
        );
  const out = new Map<string, string[]>();
  for (const { t: table, c } of rows) out.set(table, [...(out.get(table) ?? []), c]);
  return out;
}

const sorted = (rows: Row[]): Row[] =>
  rows.map((r) => JSON.parse(JSON.stringify(r)) as Row).sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y)));

/**
 * Everything the store holds of A in `mode`, table by table, read from the store's own schema so
 * that a new table is included without a change here: the rows of A's branch (of A's mode where
 * the table has one), of A's account, and the rows of other tables that name one of those (jobs,
 * attempts, ring sends). Sessions are left out: they are the callers' credentials, not A's data,
 * and A's own session is used after the walk.
 */
export async function stateOf(t: TestApp, a: Tenant, mode: Mode): Promise<Record<string, Row[]>> {
  const db = t.app.services.db;
  const out: Record<string, Row[]> = {};
  const ids = new Set<string>();
  const unlinked: string[] = [];
  for (const [table, cols] of [...(await tables(t))].sort(([x], [y]) => x.localeCompare(y))) {
    if (table === 'sessions' || table === 'schema_migrations') continue;
    const [column, id] =
      table === 'branches'
        ? ['id', a.branchId]
        : table === 'accounts'
          ? ['id', a.accountId]
          : cols.includes('branch_id')
            ? ['branch_id', a.branchId]
            : cols.includes('account_id')
              ? ['account_id', a.accountId]
              : [null, null];
    if (column === null) {
      unlinked.push(table);
      continue;
    }
    const byMode = cols.includes('mode');
    const rows = await db.query<Row>(
      `SELECT * FROM ${table} WHERE ${column} = $1${byMode ? ' AND mode = $2' : ''}`,
      byMode ? [id, mode] : [id],
    );
    out[table] = sorted(rows);
    if (byMode) for (const row of rows) if (typeof row.id === 'string') ids.add(row.id);
  }
  for (const table of unlinked) {
    const rows = await db.query<Row>(`SELECT * FROM ${table}`);
    out[table] = sorted(
      rows.filter((row) => Object.values(row).some((v) => typeof v === 'string' && [...ids].some((id) => v.includes(id)))),
    );
  }
  return out;
}

/** The markers `caller` must not see in an answer; `accountWide`: the answer lists the account's branches and users. */
export function forbiddenFor(w: World, caller: Caller, accountWide: boolean): string[] {
  return [
    ...w.markers.mode,
    ...(caller.sameBranch ? [] : w.markers.branch),
    ...(caller.sameBranch || (caller.sameAccount && accountWide) ? [] : w.markers.account),
  ];
}
