// Sign-up, verification and password reset in the isolation matrix (test/helpers/isolation-fixtures.ts).
// The public routes name nothing of A's: every caller signs up its own new shop (the walk's app
// has SIGNUP=open) and asks a reset for an address nobody has, and gets the answer anyone gets;
// links that are not one are refused alike. The signed-in user's new verification mail is the
// caller's own, refused (409) to users already verified, as every user of the walk is.
import type { Fixture, Outcome } from './isolation-fixtures.ts';
import { uniqueEmail } from './isolation-world.ts';

const own = (status: number): Outcome => ({ own: status });
const notALink: Outcome = { refuse: 422, code: 'validation-failed' };
const BOGUS_TOKEN = 'A'.repeat(43);

export const SIGNUP_FIXTURES: Record<string, Fixture> = {
  'GET /v1/signup': {
    scope: 'public',
    anonymous: true,
    calls: () => [{ path: '/v1/signup' }],
    outsider: own(200),
    owner: { status: 200 },
  },
  'POST /v1/signup': {
    scope: 'public',
    anonymous: true,
    calls: () => [
      {
        path: '/v1/signup',
        body: { email: uniqueEmail(), password: 'a long phrase of my own', shop_name: 'Walk-in Café', timezone: 'Europe/Paris' },
      },
    ],
    outsider: own(202),
    owner: { status: 202 },
  },
  'POST /v1/signup/verify': {
    scope: 'public',
    anonymous: true,
    calls: () => [{ path: '/v1/signup/verify', body: { token: BOGUS_TOKEN } }],
    outsider: notALink,
    owner: { status: 422 },
  },
  'POST /v1/password_resets': {
    scope: 'public',
    anonymous: true,
    calls: () => [{ path: '/v1/password_resets', body: { email: uniqueEmail() } }],
    outsider: own(202),
    owner: { status: 202 },
  },
  'POST /v1/password_resets/complete': {
    scope: 'public',
    anonymous: true,
    calls: () => [{ path: '/v1/password_resets/complete', body: { token: BOGUS_TOKEN, password: 'a long phrase of my own' } }],
    outsider: notALink,
    owner: { status: 422 },
  },
  'POST /v1/session/verification_email': {
    scope: 'caller',
    calls: () => [{ path: '/v1/session/verification_email', body: {} }],
    outsider: { refuse: 409, code: 'conflict' },
    owner: { status: 409 },
  },
};
