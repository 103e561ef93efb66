// `@readybell/client` and `@readybell/webhooks` as an integrator gets them from npm: each packed
// with `npm pack`, installed from its tarball into an empty project, then used from an ES module
// and from a CommonJS script (a client that creates a ticket on a real readybell; a verifier that
// checks a real event signed by the service), and type-checked as TypeScript projects in each
// module mode (nodenext, node16, bundler), CommonJS files included.
// One engine: the packages are checked as installed files; the routes the client calls are tested on both engines by their own files.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { nodeEnv, owned } from '../helpers/child-processes.ts';
import { typeErrors } from '../helpers/type-check.ts';
import { signedHeaders } from '../../src/webhooks/signature.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PACKAGES = ['client', 'webhooks'] as const;
/** Any of our children taking longer is stuck, not slow: npm with no network, or a script awaiting forever. */
const CHILD_TIMEOUT_MS = 20_000;
const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;

let t: TestApp;
let project: string;

/** Runs a child bounded in time and owned by this file; resolves with its stdout, rejects with its stderr. */
function run(command: string, args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    owned(
      execFile(command, args, { cwd, timeout: CHILD_TIMEOUT_MS, env: { ...process.env, ...nodeEnv() } }, (error, stdout, stderr) => {
        if (error) reject(new Error(`${command} ${args.join(' ')}: ${error.message}\n${stderr}`));
        else resolve(stdout);
      }),
    );
  });
}

function manifest(name: (typeof PACKAGES)[number]): { name: string; version: string } {
  return JSON.parse(readFileSync(path.join(ROOT, `packages/${name}/package.json`), 'utf8'));
}

before(async () => {
  t = await startTestApp();
  project = mkdtempSync(path.join(tmpdir(), 'readybell-packages-'));
  // No "type": an integrator's project is CommonJS unless it says otherwise; .mjs and .mts opt in.
  writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'pos', private: true }));
  await Promise.all(PACKAGES.map((p) => run('npm', ['pack', `./packages/${p}`, '--pack-destination', project], ROOT)));
  const tarballs = PACKAGES.map((p) => `./${manifest(p).name.replace('@', '').replace('/', '-')}-${manifest(p).version}.tgz`);
  await run('npm', ['install', ...tarballs, '--offline', '--no-audit', '--no-fund'], project);
});
after(async () => {
  await t?.close();
  if (project !== undefined) rmSync(project, { recursive: true, force: true });
});

/** A real event of the service and its delivery headers, signed as the service signs a delivery. */
async function signedEvent(): Promise<{ body: string; headers: Record<string, string> }> {
  const created = await t.request('POST', '/v1/tickets', { key: t.tenant.testKey, body: { external_ref: 'pkg' } });
  assert.equal(created.status, 201, created.text);
  assert.equal((await t.request('POST', `/v1/tickets/${created.body.id}/ready`, { key: t.tenant.testKey })).status, 200);
  const events = await t.request('GET', '/v1/events?type=ticket.ready&limit=1', { key: t.tenant.testKey });
  const body = JSON.stringify(events.body.data[0]);
  const signed = signedHeaders([SECRET], events.body.data[0].id, Math.floor(Date.now() / 1000), body);
  // As Node's req.headers hands them over: lower case.
  return { body, headers: Object.fromEntries(Object.entries(signed).map(([k, v]) => [k.toLowerCase(), v])) };
}

// The same steps in both module systems; `load` is the only difference.
const steps = (load: string): string => `
${load}
const [baseUrl, apiKey, secret, body, headersJson] = process.argv.slice(2);
const headers = JSON.parse(headersJson);
async function main() {
  const event = verifyStandardWebhook(body, headers, secret);
  const same = verifyWebhook(body, headers['service-signature'], secret);
  let refused = null;
  try { verifyWebhook(body.replace('ready', 'rung'), headers['service-signature'], secret); } catch (e) { refused = e instanceof WebhookSignatureError ? e.code : String(e); }
  const client = createClient({ baseUrl, apiKey });
  const { data } = await client.POST('/v1/tickets', { body: { external_ref: 'from-package' } });
  const missing = await client.GET('/v1/tickets/{id}', { params: { path: { id: 'tk_nope' } } }).catch((e) => e);
  // One copy of each module whichever way it is loaded: an error class is the same class.
  const esm = await import('@readybell/webhooks');
  console.log(JSON.stringify({
    type: event.type, previous: event.data.previous_status, same: same.id === event.id, refused,
    ticket: data.status, missing: missing instanceof ReadybellError ? missing.code : String(missing),
    oneClass: esm.WebhookSignatureError === WebhookSignatureError,
  }));
}
main().catch((e) => { console.error(e); process.exitCode = 1; });
`;

/** The event types' declarations, one a generated file of src/webhooks/events/. */
const EVENT_TYPES = readdirSync(path.join(ROOT, 'src/webhooks/events')).map((f) => `dist/events/${f.replace(/\.ts$/, '.d.ts')}`);

/** What each package ships besides its manifest, license and README: the ES module, its CommonJS entry, and the types of both. */
const SHIPPED = {
  client: ['src/index.js', 'src/index.d.ts', 'src/schema.d.ts', 'dist/index.cjs', 'dist/index.d.cts'],
  webhooks: ['dist/index.js', 'dist/index.d.ts', ...EVENT_TYPES, 'dist/index.cjs', 'dist/index.d.cts'],
};

test('each package installs from its tarball with its manifest, license, README and built entries, nothing else', () => {
  for (const p of PACKAGES) {
    // What was installed from the tarball is what `npm pack` (and so `npm publish`) put in it.
    const installed = path.join(project, `node_modules/@readybell/${p}`);
    const files = readdirSync(installed, { recursive: true, withFileTypes: true })
      .filter((f) => f.isFile())
      .map((f) => path.relative(installed, path.join(f.parentPath, f.name)));
    assert.deepEqual(files.sort(), [...SHIPPED[p], 'LICENSE', 'README.md', 'package.json'].sort(), p);
    const m = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8'));
    for (const field of ['repository', 'homepage', 'license', 'engines', 'keywords', 'publishConfig'])
      assert.ok(m[field] !== undefined, `${p}: ${field}`);
    assert.equal(m.license, 'MIT');
  }
});

test('an ES module and a CommonJS script each verify a delivery signed by the service and drive a ticket with the client', async () => {
  const { body, headers } = await signedEvent();
  writeFileSync(
    path.join(project, 'use.mjs'),
    steps(`import { createClient, ReadybellError } from '@readybell/client';
import { verifyStandardWebhook, verifyWebhook, WebhookSignatureError } from '@readybell/webhooks';`),
  );
  writeFileSync(
    path.join(project, 'use.cjs'),
    steps(`'use strict';
const { createClient, ReadybellError } = require('@readybell/client');
const { verifyStandardWebhook, verifyWebhook, WebhookSignatureError } = require('@readybell/webhooks');`),
  );
  const args = [t.url, t.tenant.testKey, SECRET, body, JSON.stringify(headers)];
  const expected = {
    type: 'ticket.ready',
    previous: 'created',
    same: true,
    refused: 'signature_mismatch',
    ticket: 'created',
    missing: 'not-found',
    oneClass: true,
  };
  const [esm, cjs] = await Promise.all([
    run(process.execPath, ['use.mjs', ...args], project),
    run(process.execPath, ['use.cjs', ...args], project),
  ]);
  assert.deepEqual(JSON.parse(esm), expected, 'ES module');
  assert.deepEqual(JSON.parse(cjs), expected, 'CommonJS');
});

// What an integrator writes in TypeScript: each event's `data` typed by narrowing on `type`.
const USAGE = `
import { createClient, type Client } from '@readybell/client';
import { verifyStandardWebhook, type WebhookEventOf } from '@readybell/webhooks';

export function onDelivery(body: string, headers: Record<string, string>, secret: string): string {
  const event = verifyStandardWebhook(body, headers, secret);
  switch (event.type) {
    case 'ticket.rung':
      return event.data.ring.channel_used;
    case 'ticket.customer_snoozed':
      return \`\${event.data.object.display_number} in \${event.data.minutes} min\`;
    default:
      return event.type;
  }
}
export const previous = (event: WebhookEventOf<'ticket.ready'>): string => event.data.previous_status;
export const client: Client = createClient({ baseUrl: 'https://pickup.example.com', apiKey: 'rk_test_x' });
export async function ready(id: string): Promise<'created' | 'ready' | 'collected' | 'cancelled' | 'expired'> {
  const { data } = await client.POST('/v1/tickets/{id}/ready', { params: { path: { id } } });
  return data.ticket.status;
}
`;

test('the packages type-check in TypeScript projects under nodenext, node16 and bundler, from ES modules and CommonJS', () => {
  writeFileSync(path.join(project, 'usage.mts'), USAGE);
  // A CommonJS file of a node16/nodenext project: its imports compile to require().
  writeFileSync(path.join(project, 'usage.cts'), USAGE);
  writeFileSync(
    path.join(project, 'legacy.cts'),
    `import webhooks = require('@readybell/webhooks');\nexport const code: webhooks.WebhookErrorCode = 'signature_mismatch';\n`,
  );
  writeFileSync(path.join(project, 'usage.ts'), USAGE);
  const files = (...names: string[]): string[] => names.map((n) => path.join(project, n));
  // The packages' own declarations are checked too, as each Node mode resolves them (a bundler
  // resolves the ES module declarations nodenext has checked).
  const ours = path.join(project, 'node_modules/@readybell');
  assert.deepEqual(
    typeErrors(files('usage.mts', 'usage.cts', 'legacy.cts'), { node: true, module: 'nodenext', checkDeclarationsUnder: ours }),
    [],
  );
  assert.deepEqual(
    typeErrors(files('usage.mts', 'usage.cts', 'legacy.cts'), { node: true, module: 'node16', checkDeclarationsUnder: ours }),
    [],
  );
  assert.deepEqual(typeErrors(files('usage.ts'), { node: true, module: 'bundler' }), []);
});

test("narrowing a verified event on `type` gives that type's `data`, and a field of another type is an error", () => {
  const file = path.join(project, 'wrong.mts');
  writeFileSync(
    file,
    `import { verifyWebhook } from '@readybell/webhooks';
const event = verifyWebhook('', '', 'whsec_x');
if (event.type === 'ticket.ready') {
  const status: 'created' | 'ready' | 'collected' | 'cancelled' | 'expired' = event.data.previous_status;
  void status;
  void event.data.minutes;
}
`,
  );
  const errors = typeErrors(file, { node: true });
  assert.equal(errors.length, 1, errors.join('\n'));
  // The data of a change of status is the named TicketChange (issue 36 item 14), which has no `minutes`.
  assert.match(errors[0]!, /wrong\.mts: Property 'minutes' does not exist on type 'TicketChange'/);
});
