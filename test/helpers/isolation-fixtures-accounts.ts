// Invitations, the email change and the account zone in the isolation matrix
// (test/helpers/isolation-fixtures.ts; decisions 0082, 0083). Writes that would end the walk's
// world are called so that they change nothing: a deletion with a name that is not the account's,
// an email change with a wrong password, links with tokens nobody was given.
import type { Fixture, Outcome } from './isolation-fixtures.ts';
import { uniqueEmail } from './isolation-world.ts';

const own = (status: number): Outcome => ({ own: status });
const notFound: Outcome = { refuse: 404, code: 'not-found' };
const invalid: Outcome = { refuse: 422, code: 'validation-failed' };
/** A token of the right shape that no link carries. */
const NO_LINK = 'n0tAL1nkT0kenN0tAL1nkT0kenN0tAL1nkT0kenN0t';

export const ACCOUNT_FIXTURES: Record<string, Fixture> = {
  'GET /v1/invitations': {
    scope: 'account',
    calls: () => [{ path: '/v1/invitations' }],
    outsider: { list: true },
    owner: { status: 200, lists: (r) => [r.invitation] },
  },
  'POST /v1/invitations': {
    scope: 'account',
    calls: () => [{ path: '/v1/invitations', body: { email: uniqueEmail(), role: 'staff' } }],
    outsider: own(201),
    owner: { status: 201 },
  },
  'POST /v1/invitations/:id/resend': {
    scope: 'account',
    calls: (r) => [{ path: `/v1/invitations/${r.invitation}/resend` }],
    outsider: notFound,
    owner: { status: 200 },
  },
  'DELETE /v1/invitations/:id': {
    scope: 'account',
    calls: (r) => [{ path: `/v1/invitations/${r.invitation}` }],
    outsider: notFound,
    owner: { status: 200 },
  },
  'POST /v1/invitations/accept': {
    scope: 'public',
    anonymous: true,
    calls: () => [{ path: '/v1/invitations/accept', body: { token: NO_LINK, password: 'a long new passphrase' } }],
    outsider: invalid,
    owner: { status: 422 },
  },
  'POST /v1/email_changes/confirm': {
    scope: 'public',
    anonymous: true,
    calls: () => [{ path: '/v1/email_changes/confirm', body: { token: NO_LINK } }],
    outsider: invalid,
    owner: { status: 422 },
  },
  'POST /v1/session/email': {
    // A wrong password: the route acts on the caller's own user only, and changes nothing.
    scope: 'caller',
    calls: () => [{ path: '/v1/session/email', body: { email: uniqueEmail(), password: 'not the password' } }],
    outsider: invalid,
    owner: { status: 422 },
  },
  'GET /v1/account': {
    scope: 'account',
    calls: () => [{ path: '/v1/account' }],
    outsider: own(200),
    owner: { status: 200 },
  },
  'GET /v1/account/export': {
    scope: 'account',
    calls: () => [{ path: '/v1/account/export' }],
    outsider: own(200),
    owner: { status: 200, lists: (r) => [r.ticket, r.staffUser, r.branch] },
  },
  'DELETE /v1/account': {
    scope: 'account',
    calls: () => [{ path: '/v1/account', body: { name: 'Not the name of any account' } }],
    outsider: invalid,
    owner: { status: 422 },
  },
  'POST /v1/account/restore': {
    scope: 'account',
    calls: () => [{ path: '/v1/account/restore' }],
    outsider: { refuse: 409, code: 'conflict' },
    owner: { status: 409 },
  },
};
