// How the isolation walk (test/api/isolation.test.ts) calls each /v1 route, and what the callers
// who do not share A's data are documented to get. One entry per mounted route: the walk reads the
// routes from the route table, so a new /v1 route without an entry here fails it.
import type { Tenant } from './app.ts';
import { uniqueEmail, uniqueQueue, type Caller, type Mode, type Resources } from './isolation-world.ts';
import { BILLING_FIXTURES, CONNECTOR_FIXTURES } from './isolation-fixtures-connectors.ts';
import { ACCOUNT_FIXTURES } from './isolation-fixtures-accounts.ts';
import { SIGNUP_FIXTURES } from './isolation-fixtures-signup.ts';

export type Call = { path: string; body?: unknown };

/** A refusal (a problem with this status and code), a success on the caller's own data, or a list without A's objects. */
export type Outcome = { refuse: number; code: string; detail?: RegExp } | { own: number } | { list: true };

export type Fixture = {
  /**
   * How widely A shares what the route acts on: `mode`, data of A's branch in A's mode (nobody
   * else); `branch`, configuration both modes of the branch share (decision 0003); `account`, what
   * the account's branches share (users; which branches there are); `caller`, the caller's own
   * session (the request names nothing of A's); `public`, the same for everyone.
   */
  scope: 'mode' | 'branch' | 'account' | 'caller' | 'public';
  /** The requests, made anew for each caller (`who`: the caller's tenant); one per state of a ticket. */
  calls(r: Resources, who: Tenant): Call[];
  /** What a caller outside the scope gets. API keys on staff-only routes get 403 whatever this says. */
  outsider: Outcome | ((c: Caller) => Outcome);
  /** The owner's own call (default: the first of `calls`), its status, and what its list must include. */
  owner: { status: number | ((mode: Mode) => number); call?: (r: Resources) => Call; lists?: (r: Resources) => string[] };
  /** The answer lists the account's branches and the user (session summaries). */
  accountWide?: true;
  /** Each call made on a session of its own (signing out ends it). */
  fresh?: true;
  /** Sent without credentials. */
  anonymous?: true;
  /** A live stream: opened by every caller and watched (the walk's own step). */
  stream?: true;
  /**
   * A write to branch settings, which shape live tickets too (PRODUCT.md §1, decision 0052): every
   * caller in test mode, even one of A's branch, gets 403 naming the live key (`LIVE_ONLY`).
   */
  liveOnly?: true;
};

const notFound: Outcome = { refuse: 404, code: 'not-found' };
/** What a test key or a session in test mode gets for a write to branch settings. */
export const LIVE_ONLY: Outcome = { refuse: 403, code: 'forbidden', detail: /use the live key \(rk_live_…\)/ };
/** A's owner changes branch settings in live mode only. */
const liveOwner = (status: number) => (mode: Mode) => (mode === 'live' ? status : 403);
const list: Outcome = { list: true };
const own = (status: number): Outcome => ({ own: status });
const bothTickets = (r: Resources, path: (id: string) => string, body?: unknown): Call[] =>
  [r.ticket, r.readyTicket].map((id) => ({ path: path(id), ...(body === undefined ? {} : { body }) }));
/** A body naming A's queue: the queue exists for A's other mode (shared), not for other branches. */
const queueOfA = (c: Caller): Outcome => (c.sameBranch ? own(201) : { refuse: 422, code: 'validation-failed' });
/** Test helpers refuse live keys and sessions before anything else (decision 0018). */
const testOnly = (c: Caller): Outcome => (c.mode === 'live' ? { refuse: 403, code: 'forbidden' } : notFound);

/** In the order the owner's calls run after the walk: a ticket is viewed before it is collected, an endpoint deleted last. */
export const FIXTURES: Record<string, Fixture> = {
  'POST /v1/tickets': {
    scope: 'mode',
    calls: (r) => [{ path: '/v1/tickets', body: { queue: r.queue } }],
    outsider: queueOfA,
    owner: { status: 201 },
  },
  'GET /v1/tickets/:id': {
    scope: 'mode',
    calls: (r) => bothTickets(r, (id) => `/v1/tickets/${id}`),
    outsider: notFound,
    owner: { status: 200 },
  },
  'GET /v1/tickets': {
    scope: 'mode',
    calls: (r) => [{ path: '/v1/tickets?limit=100' }, { path: `/v1/tickets?external_ref=${r.ref}` }],
    outsider: list,
    owner: { status: 200, lists: (r) => [r.ticket] },
  },
  'GET /v1/tickets/:id/qr.svg': {
    scope: 'mode',
    calls: (r) => bothTickets(r, (id) => `/v1/tickets/${id}/qr.svg`),
    outsider: notFound,
    owner: { status: 200 },
  },
  'GET /v1/tickets/:id/qr.png': {
    scope: 'mode',
    calls: (r) => bothTickets(r, (id) => `/v1/tickets/${id}/qr.png`),
    outsider: notFound,
    owner: { status: 200 },
  },
  'POST /v1/test_helpers/tickets/:id/customer/:action': {
    scope: 'mode',
    calls: (r) => bothTickets(r, (id) => `/v1/test_helpers/tickets/${id}/customer/view`),
    outsider: testOnly,
    owner: { status: (mode) => (mode === 'test' ? 200 : 403) },
  },
  'POST /v1/test_helpers/tickets/:id/sms_reply': {
    // A's tickets were never texted: the owner's reply is refused with 409 (nothing to answer).
    scope: 'mode',
    calls: (r) => bothTickets(r, (id) => `/v1/test_helpers/tickets/${id}/sms_reply`, { body: '1' }),
    outsider: testOnly,
    owner: { status: (mode) => (mode === 'test' ? 409 : 403) },
  },
  'POST /v1/test_helpers/displays/:id/connect': {
    scope: 'mode',
    calls: (r) => [{ path: `/v1/test_helpers/displays/${r.display}/connect` }],
    outsider: testOnly,
    owner: { status: (mode) => (mode === 'test' ? 200 : 403) },
  },
  'POST /v1/tickets/:id/ready': {
    scope: 'mode',
    calls: (r) => bothTickets(r, (id) => `/v1/tickets/${id}/ready`),
    outsider: notFound,
    owner: { status: 200 },
  },
  'POST /v1/tickets/:id/ring': {
    scope: 'mode',
    calls: (r) => bothTickets(r, (id) => `/v1/tickets/${id}/ring`),
    outsider: notFound,
    owner: { status: 200, call: (r) => ({ path: `/v1/tickets/${r.readyTicket}/ring` }) },
  },
  'POST /v1/tickets/:id/collect': {
    scope: 'mode',
    calls: (r) => bothTickets(r, (id) => `/v1/tickets/${id}/collect`),
    outsider: notFound,
    owner: { status: 200, call: (r) => ({ path: `/v1/tickets/${r.readyTicket}/collect` }) },
  },
  'POST /v1/tickets/:id/cancel': {
    scope: 'mode',
    calls: (r) => bothTickets(r, (id) => `/v1/tickets/${id}/cancel`, { reason: 'not yours' }),
    outsider: notFound,
    owner: { status: 200 },
  },
  // After the owner's collect above: the owner brings the collected ticket back.
  'POST /v1/tickets/:id/reopen': {
    scope: 'mode',
    calls: (r) => bothTickets(r, (id) => `/v1/tickets/${id}/reopen`),
    outsider: notFound,
    owner: { status: 200, call: (r) => ({ path: `/v1/tickets/${r.readyTicket}/reopen` }) },
  },
  // Figures of the caller's own branch and mode: an intruder reads its own (the counts are checked
  // in isolation.test.ts's insights block); never one of A's ids.
  'GET /v1/insights': { scope: 'mode', calls: () => [{ path: '/v1/insights' }], outsider: own(200), owner: { status: 200 } },
  'GET /v1/insights/days': { scope: 'mode', calls: () => [{ path: '/v1/insights/days' }], outsider: own(200), owner: { status: 200 } },
  'GET /v1/insights/hours': { scope: 'mode', calls: () => [{ path: '/v1/insights/hours' }], outsider: own(200), owner: { status: 200 } },
  'GET /v1/insights/weekday_hours': {
    scope: 'mode',
    calls: () => [{ path: '/v1/insights/weekday_hours' }],
    outsider: own(200),
    owner: { status: 200 },
  },
  'GET /v1/insights/tickets.csv': {
    scope: 'mode',
    calls: () => [{ path: '/v1/insights/tickets.csv' }],
    outsider: own(200),
    owner: { status: 200, lists: (r) => [r.ticket] },
  },
  'GET /v1/events/:id': { scope: 'mode', calls: (r) => [{ path: `/v1/events/${r.event}` }], outsider: notFound, owner: { status: 200 } },
  'GET /v1/events': {
    scope: 'mode',
    calls: () => [{ path: '/v1/events?limit=100' }],
    outsider: list,
    owner: { status: 200, lists: (r) => [r.event] },
  },
  'GET /v1/stream': { scope: 'mode', calls: () => [{ path: '/v1/stream' }], outsider: own(200), owner: { status: 200 }, stream: true },

  'GET /v1/webhook_endpoints': {
    scope: 'mode',
    calls: () => [{ path: '/v1/webhook_endpoints' }],
    outsider: list,
    owner: { status: 200, lists: (r) => [r.endpoint] },
  },
  'POST /v1/webhook_endpoints': {
    scope: 'mode',
    calls: () => [{ path: '/v1/webhook_endpoints', body: { url: 'https://93.184.216.34/elsewhere' } }],
    outsider: own(201),
    owner: { status: 201 },
  },
  'GET /v1/webhook_endpoints/:id': {
    scope: 'mode',
    calls: (r) => [{ path: `/v1/webhook_endpoints/${r.endpoint}` }],
    outsider: notFound,
    owner: { status: 200 },
  },
  'PATCH /v1/webhook_endpoints/:id': {
    scope: 'mode',
    calls: (r) => [{ path: `/v1/webhook_endpoints/${r.endpoint}`, body: { description: 'taken over' } }],
    outsider: notFound,
    owner: { status: 200 },
  },
  'POST /v1/webhook_endpoints/:id/rotate_secret': {
    scope: 'mode',
    calls: (r) => [{ path: `/v1/webhook_endpoints/${r.endpoint}/rotate_secret`, body: { expires_in: 0 } }],
    outsider: notFound,
    owner: { status: 200 },
  },
  'GET /v1/webhook_endpoints/:id/secret': {
    scope: 'mode',
    calls: (r) => [{ path: `/v1/webhook_endpoints/${r.endpoint}/secret` }],
    outsider: notFound,
    owner: { status: 200 },
  },
  'GET /v1/webhook_endpoints/:id/deliveries': {
    scope: 'mode',
    calls: (r) => [{ path: `/v1/webhook_endpoints/${r.endpoint}/deliveries` }],
    outsider: notFound,
    owner: { status: 200, lists: (r) => [r.delivery] },
  },
  'GET /v1/webhook_deliveries/:id': {
    scope: 'mode',
    calls: (r) => [{ path: `/v1/webhook_deliveries/${r.delivery}` }],
    outsider: notFound,
    owner: { status: 200 },
  },
  'POST /v1/webhook_deliveries/:id/retry': {
    scope: 'mode',
    calls: (r) => [{ path: `/v1/webhook_deliveries/${r.delivery}/retry` }],
    outsider: notFound,
    owner: { status: 202 },
  },
  'POST /v1/webhook_endpoints/:id/test': {
    scope: 'mode',
    calls: (r) => [{ path: `/v1/webhook_endpoints/${r.endpoint}/test` }],
    outsider: notFound,
    owner: { status: 202 },
  },
  'DELETE /v1/webhook_endpoints/:id': {
    scope: 'mode',
    calls: (r) => [{ path: `/v1/webhook_endpoints/${r.endpoint}` }],
    outsider: notFound,
    owner: { status: 200 },
  },

  'GET /v1/displays': {
    scope: 'mode',
    calls: () => [{ path: '/v1/displays' }],
    outsider: list,
    owner: { status: 200, lists: (r) => [r.display] },
  },
  'POST /v1/displays': {
    scope: 'mode',
    calls: (r) => [{ path: '/v1/displays', body: { name: 'Their TV', queues: [r.queue] } }],
    outsider: queueOfA,
    owner: { status: 201 },
  },
  'DELETE /v1/displays/:id': {
    scope: 'mode',
    calls: (r) => [{ path: `/v1/displays/${r.display}` }],
    outsider: notFound,
    owner: { status: 200 },
  },
  'GET /v1/announcements': {
    scope: 'mode',
    calls: () => [{ path: '/v1/announcements' }],
    outsider: list,
    owner: { status: 200, lists: (r) => [r.announcement] },
  },
  'POST /v1/announcements': {
    scope: 'mode',
    calls: () => [{ path: '/v1/announcements', body: { message: 'Closed today' } }],
    outsider: own(201),
    owner: { status: 201 },
  },
  'DELETE /v1/announcements/:id': {
    scope: 'mode',
    calls: (r) => [{ path: `/v1/announcements/${r.announcement}` }],
    outsider: notFound,
    owner: { status: 200 },
  },

  'GET /v1/branch': { scope: 'branch', calls: () => [{ path: '/v1/branch' }], outsider: own(200), owner: { status: 200 } },
  'PATCH /v1/branch': {
    scope: 'branch',
    calls: () => [{ path: '/v1/branch', body: { name: 'Renamed', reminder_count: 1 } }],
    outsider: own(200),
    owner: { status: liveOwner(200) },
    liveOnly: true,
  },
  'GET /v1/queues': {
    scope: 'branch',
    calls: () => [{ path: '/v1/queues' }],
    outsider: list,
    owner: { status: 200, lists: (r) => [r.queue] },
  },
  'POST /v1/queues': {
    scope: 'branch',
    calls: () => [{ path: '/v1/queues', body: { name: uniqueQueue() } }],
    outsider: own(201),
    owner: { status: 201 },
  },
  'PATCH /v1/queues/:name': {
    scope: 'branch',
    calls: (r) => [{ path: `/v1/queues/${r.renameQueue}`, body: { name: uniqueQueue(), is_default: true } }],
    outsider: notFound,
    owner: { status: liveOwner(200) },
    // is_default is the branch's default_queue.
    liveOnly: true,
  },
  'DELETE /v1/queues/:name': {
    scope: 'branch',
    calls: (r) => [{ path: `/v1/queues/${r.dropQueue}` }],
    outsider: notFound,
    owner: { status: 200 },
  },
  'GET /v1/api_keys': {
    scope: 'branch',
    calls: () => [{ path: '/v1/api_keys' }],
    outsider: list,
    owner: { status: 200, lists: (r) => [r.apiKey] },
  },
  'POST /v1/api_keys': {
    scope: 'branch',
    calls: () => [{ path: '/v1/api_keys', body: { mode: 'test', name: 'Theirs' } }],
    outsider: own(201),
    owner: { status: 201 },
  },
  'DELETE /v1/api_keys/:id': {
    scope: 'branch',
    calls: (r) => [{ path: `/v1/api_keys/${r.apiKey}` }],
    outsider: notFound,
    owner: { status: 200 },
  },

  'GET /v1/users': {
    scope: 'account',
    calls: () => [{ path: '/v1/users' }],
    outsider: list,
    owner: { status: 200, lists: (r) => [r.staffUser] },
  },
  'POST /v1/users': {
    scope: 'account',
    calls: () => [{ path: '/v1/users', body: { email: uniqueEmail(), role: 'staff' } }],
    outsider: own(201),
    owner: { status: 201 },
  },
  'PATCH /v1/users/:id': {
    scope: 'account',
    calls: (r) => [{ path: `/v1/users/${r.staffUser}`, body: { role: 'owner', reset_password: true } }],
    outsider: notFound,
    owner: { status: 200 },
  },
  'DELETE /v1/users/:id': {
    scope: 'account',
    calls: (r) => [{ path: `/v1/users/${r.staffUser}` }],
    outsider: notFound,
    owner: { status: 200 },
  },

  'POST /v1/sessions': {
    // Signing in to A's branch with another account's password.
    scope: 'account',
    anonymous: true,
    accountWide: true,
    calls: (r, who) => [{ path: '/v1/sessions', body: { email: who.ownerEmail, password: who.ownerPassword, branch: r.branch } }],
    outsider: { refuse: 422, code: 'validation-failed' },
    owner: { status: 201 },
  },
  'GET /v1/session': {
    scope: 'caller',
    accountWide: true,
    calls: () => [{ path: '/v1/session' }],
    outsider: own(200),
    owner: { status: 200 },
  },
  'POST /v1/session/branch': {
    // Switching to A's branch: only the account's sessions may (and they share A's branch list).
    scope: 'account',
    accountWide: true,
    calls: (r) => [{ path: '/v1/session/branch', body: { branch: r.branch } }],
    outsider: { refuse: 422, code: 'validation-failed' },
    owner: { status: 200 },
  },
  'POST /v1/session/password': {
    // A wrong current password: the route acts on the caller's own user only, and changes nothing.
    scope: 'caller',
    calls: () => [{ path: '/v1/session/password', body: { current_password: 'not the password', new_password: 'a long new passphrase' } }],
    outsider: { refuse: 422, code: 'validation-failed' },
    owner: { status: 422 },
  },
  'DELETE /v1/session': {
    scope: 'caller',
    fresh: true,
    calls: () => [{ path: '/v1/session' }],
    outsider: own(200),
    owner: { status: 200 },
  },
  ...CONNECTOR_FIXTURES,
  ...ACCOUNT_FIXTURES,
  ...BILLING_FIXTURES,
  ...SIGNUP_FIXTURES,
  'GET /v1/openapi.json': {
    scope: 'public',
    anonymous: true,
    calls: () => [{ path: '/v1/openapi.json' }],
    outsider: own(200),
    owner: { status: 200 },
  },
};
