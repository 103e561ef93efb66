// One write path (docs/decisions/0078-one-write-path.md): every write names its verb and its
// input, and the write path (src/write/) opens the transaction, runs the verb, records the
// Idempotency-Key and runs the after-commit work. So no module outside src/store and src/write
// opens a transaction (`db.write(`) but the few written down below, each with its reason, and
// nothing outside src/write builds a verb's transactional ctx by hand (`{ ...ctx, tx }`). A route
// cannot hand the write path a closure at all: WriteSpec has no such field (the type-check holds
// that). Read as text, like reads-are-verbs.test.ts reads the action files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * Where a transaction is still opened outside src/store and src/write, and why. A file may open
 * at most the count given; a new site anywhere else fails the test.
 */
const ALLOWED: Record<string, { count: number; reason: string }> = {
  'runner/runner.ts': {
    count: 5,
    reason: "the job queue's own statements (lease, renew, release, settle, retry): below the verbs, it runs them, none is a verb",
  },
  'runner/schedules.ts': {
    count: 1,
    reason: "a module's scheduled job put in the queue for its slot: the job queue's own statement, no tenant",
  },
  'webhooks/deliver.ts': {
    count: 2,
    reason: "a delivery's outcome, recorded by the runner's handler below the verbs (no tenant's request)",
  },
  'realtime/ring-confirm.ts': {
    count: 3,
    reason: "a page's, board's or pass's confirmation of a ring: one row, below the verbs, by the ring's id",
  },
  'channels/push.ts': { count: 1, reason: 'a push subscription the push service says is gone: bookkeeping of the channel' },
  'channels/sms/sms-channel.ts': {
    count: 1,
    reason: 'a number the provider refuses (opted out at the carrier): bookkeeping of the channel',
  },
  'channels/sms/receipts.ts': { count: 1, reason: "the provider's delivery receipt of a text: bookkeeping of the channel" },
  'channels/vapid.ts': { count: 1, reason: "the node's Web Push keys, made once: no tenant" },
  'channels/wallet/apple/apple-issuer.ts': {
    count: 4,
    reason: "Apple's pass registrations and update tags: bookkeeping of the wallet channel",
  },
  'actions/wallet-passes.ts': {
    count: 3,
    reason: "a wallet's calls, authenticated by the pass's token before any ctx exists (Apple's web service)",
  },
  'actions/session-lookup.ts': { count: 1, reason: "a session's last use, while it is authenticated, before any ctx exists" },
  'actions/staff-session.ts': { count: 1, reason: 'sign-in, before any ctx exists' },
  'jobs/maintenance.ts': { count: 1, reason: "the API keys' last use, flushed in one statement for every account" },
  'connectors/oauth-flow.ts': { count: 1, reason: "the shared OAuth flow's state taken at the callback, before the connection has a ctx" },
  'connectors/square/oauth.ts': { count: 1, reason: "Square's tokens, before the connection has a ctx" },
  'connectors/shopify/oauth.ts': { count: 1, reason: "Shopify's token, before the connection has a ctx" },
  'connectors/shopify/webhooks.ts': {
    count: 2,
    reason: "Shopify's webhook recorded with its job, and an uninstalled app's connections erased, before any ticket verb",
  },
  'connectors/square/token-refresh.ts': { count: 2, reason: "Square's refreshed tokens: the connector's own credentials, no verb" },
  'connectors/square/notifications.ts': { count: 1, reason: "Square's notification recorded with its job, before any ticket verb" },
  'cli/main.ts': { count: 7, reason: "account administration by the operator: no tenant's ctx (accounts, plans, keys, a password reset)" },
  'cli/demo.ts': { count: 2, reason: "the demo's setup: the operator's, no tenant's ctx" },
};

/** A transaction opened: `db.write(`, `.db.write(`, or a chained `.write((tx) =>`. */
const OPENS = /\bdb\s*\.\s*write\s*\(|\.write\(\s*(?:async\s*)?\(\s*tx\b/g;
/** A verb's transactional ctx built by hand: `{ ...ctx, tx }`. */
const HAND_BUILT_TX_CTX = /\{\s*\.\.\.[\w.]*\s*,\s*tx\s*\}/g;

function sources(dir: string, under = ''): Array<{ name: string; source: string }> {
  const out: Array<{ name: string; source: string }> = [];
  for (const entry of readdirSync(path.join(dir, under), { withFileTypes: true })) {
    const rel = under === '' ? entry.name : `${under}/${entry.name}`;
    if (entry.isDirectory()) out.push(...sources(dir, rel));
    else if (entry.name.endsWith('.ts')) out.push({ name: rel, source: readFileSync(path.join(dir, rel), 'utf8') });
  }
  return out;
}

/** Comments say `db.write(` too; only code counts. */
const code = (source: string): string => source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/.*$/gm, '$1');

/** Each file that opens more transactions than it may, or builds a TxCtx by hand, with what it does. */
function violations(files: ReadonlyArray<{ name: string; source: string }>, allowed = ALLOWED): string[] {
  const found: string[] = [];
  for (const { name, source } of files) {
    if (name.startsWith('store/') || name.startsWith('write/')) continue;
    const text = code(source);
    const opens = (text.match(OPENS) ?? []).length;
    const may = allowed[name]?.count ?? 0;
    if (opens > may) found.push(`${name}: opens ${opens} transaction(s), may ${may}`);
    const built = (text.match(HAND_BUILT_TX_CTX) ?? []).length;
    if (built > 0) found.push(`${name}: builds a TxCtx by hand ${built} time(s)`);
  }
  return found.sort();
}

const files = sources(path.join(ROOT, 'src'));

test('no transaction is opened outside src/store and src/write but where written down, and no TxCtx is built by hand', () => {
  assert.ok(files.length > 100, `${files.length} files read`);
  assert.deepEqual(violations(files), []);
});

test('every exception written down is still needed: its count is what the file opens', () => {
  const counts = Object.fromEntries(files.map(({ name, source }) => [name, (code(source).match(OPENS) ?? []).length]));
  const stale = Object.entries(ALLOWED)
    .filter(([name, { count }]) => counts[name] !== count)
    .map(([name, { count }]) => `${name}: written down ${count}, opens ${counts[name] ?? 'no file'}`);
  assert.deepEqual(stale, []);
});

test('the rule catches a route, a job or a channel that opens a transaction or builds a TxCtx', () => {
  const made = [
    { name: 'http/routes/push.ts', source: 'await db.write((tx) => subscribeToPush({ ctx: { ...ctx, tx }, input }));' },
    { name: 'jobs/maintenance.ts', source: 'await this.services.db.write((tx) => a(tx));\nawait services.db.write(async (tx) => b(tx));' },
    { name: 'channels/x.ts', source: 'await this.deps.db\n  .write((tx) => c(tx));\n// db.write( in a comment does not count' },
    { name: 'ring/jobs.ts', source: 'const decision = await write(ctx, { verb: start, input: p });' },
    { name: 'store/tickets.ts', source: 'await db.write((tx) => d(tx));' },
    { name: 'write/after-commit.ts', source: 'await db.write((tx) => record({ ...ctx, tx }));' },
  ];
  assert.deepEqual(violations(made, { 'jobs/maintenance.ts': { count: 1, reason: 'test' } }), [
    'channels/x.ts: opens 1 transaction(s), may 0',
    'http/routes/push.ts: builds a TxCtx by hand 1 time(s)',
    'http/routes/push.ts: opens 1 transaction(s), may 0',
    'jobs/maintenance.ts: opens 2 transaction(s), may 1',
  ]);
});
