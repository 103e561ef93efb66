// The connectors' operations in the isolation matrix (test/helpers/isolation-fixtures.ts): the
// Square connection is the branch's (both modes); the matrix's app has no Square application, so
// every owner sees not_configured and nothing can start (test/api/square-*.test.ts cover the rest).
import type { Fixture, Outcome } from './isolation-fixtures.ts';

const own = (status: number): Outcome => ({ own: status });

export const CONNECTOR_FIXTURES: Record<string, Fixture> = {
  // Which connectors this server is built with: the same for every staff session.
  'GET /v1/connectors': {
    scope: 'public',
    calls: () => [{ path: '/v1/connectors' }],
    outsider: own(200),
    owner: { status: 200 },
  },
  'GET /v1/connectors/square': {
    scope: 'branch',
    calls: () => [{ path: '/v1/connectors/square' }],
    outsider: own(200),
    owner: { status: 200 },
  },
  'POST /v1/connectors/square/authorize': {
    scope: 'branch',
    calls: () => [{ path: '/v1/connectors/square/authorize' }],
    outsider: { refuse: 409, code: 'conflict' },
    owner: { status: 409 },
  },
  'GET /v1/connectors/square/locations': {
    scope: 'branch',
    calls: () => [{ path: '/v1/connectors/square/locations' }],
    outsider: own(200),
    owner: { status: 200 },
  },
  'PATCH /v1/connectors/square': {
    scope: 'branch',
    calls: () => [{ path: '/v1/connectors/square', body: { mark_prepared: true } }],
    outsider: { refuse: 409, code: 'conflict' },
    owner: { status: 409 },
  },
  'DELETE /v1/connectors/square': {
    scope: 'branch',
    calls: () => [{ path: '/v1/connectors/square' }],
    outsider: own(200),
    owner: { status: 200 },
  },
  // Shopify's: as Square's, the matrix's app has no Shopify app (test/api/shopify-*.test.ts cover the rest).
  'GET /v1/connectors/shopify': {
    scope: 'branch',
    calls: () => [{ path: '/v1/connectors/shopify' }],
    outsider: own(200),
    owner: { status: 200 },
  },
  'POST /v1/connectors/shopify/authorize': {
    scope: 'branch',
    calls: () => [{ path: '/v1/connectors/shopify/authorize', body: { shop: 'corner-cafe.myshopify.com' } }],
    outsider: { refuse: 409, code: 'conflict' },
    owner: { status: 409 },
  },
  'GET /v1/connectors/shopify/locations': {
    scope: 'branch',
    calls: () => [{ path: '/v1/connectors/shopify/locations' }],
    outsider: own(200),
    owner: { status: 200 },
  },
  'PATCH /v1/connectors/shopify': {
    scope: 'branch',
    calls: () => [{ path: '/v1/connectors/shopify', body: { mark_prepared: true } }],
    outsider: { refuse: 409, code: 'conflict' },
    owner: { status: 409 },
  },
  'DELETE /v1/connectors/shopify': {
    scope: 'branch',
    calls: () => [{ path: '/v1/connectors/shopify' }],
    outsider: own(200),
    owner: { status: 200 },
  },
};

// Billing (decision 0084) is the account's: the matrix's app has no Stripe configured, so every
// owner reads their own account's billing and nothing can start (test/api/billing-stripe.test.ts
// covers the rest, against a fake of Stripe).
export const BILLING_FIXTURES: Record<string, Fixture> = {
  'GET /v1/billing': {
    scope: 'account',
    calls: () => [{ path: '/v1/billing' }],
    outsider: own(200),
    owner: { status: 200 },
  },
  'POST /v1/billing/checkout': {
    scope: 'account',
    calls: () => [{ path: '/v1/billing/checkout', body: { plan: 'pro', period: 'monthly' } }],
    outsider: { refuse: 409, code: 'conflict' },
    owner: { status: 409 },
  },
  'POST /v1/billing/portal': {
    scope: 'account',
    calls: () => [{ path: '/v1/billing/portal' }],
    outsider: { refuse: 409, code: 'conflict' },
    owner: { status: 409 },
  },
};
