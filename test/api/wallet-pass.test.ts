// The Apple Wallet pass a customer adds (issue 28, decision 0071), checked independently of the
// library that builds it: the served .pkpass is unzipped here, manifest.json is checked against
// each file's SHA-1, and the detached PKCS#7 signature is verified with `openssl smime -verify`
// against the test's own root CA (certificates made by the test with the openssl CLI).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { strFromU8 } from 'fflate';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { makeWalletCerts, PASS_TYPE_ID, TEAM_ID, type WalletCerts } from '../helpers/wallet-certs.ts';
import { readPkpass } from '../helpers/wallet-device.ts';
import { loadConfig } from '../../src/config.ts';

let t: TestApp;
let plain: TestApp;
let certs: WalletCerts;

before(async () => {
  certs = makeWalletCerts();
  t = await startTestApp({ env: certs.env('https://127.0.0.1:9') });
  plain = await startTestApp();
});
after(async () => {
  await t?.close();
  await plain?.close();
  certs?.drop();
});

async function newTicket(app: TestApp, key?: string): Promise<any> {
  const res = await app.request('POST', '/v1/tickets', { key, body: { queue: 'A', customer_phone: '+14155550123' } });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

const local = (app: TestApp, url: string): string => url.replace('http://localhost:3000', app.url);

async function download(app: TestApp, ticket: any): Promise<Response> {
  return fetch(`${local(app, ticket.url)}/wallet/apple.pkpass`);
}

test('a live ticket is served as a signed .pkpass whose manifest and signature verify independently', async () => {
  const ticket = await newTicket(t, t.tenant.liveKey);
  const res = await download(t, ticket);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'application/vnd.apple.pkpass');
  assert.equal(res.headers.get('cache-control'), 'no-store');
  const { files, json } = readPkpass(new Uint8Array(await res.arrayBuffer()));

  assert.deepEqual(Object.keys(files).sort(), ['icon.png', 'icon@2x.png', 'icon@3x.png', 'manifest.json', 'pass.json', 'signature']);
  const manifest = JSON.parse(strFromU8(files['manifest.json']!)) as Record<string, string>;
  const hashed = Object.keys(files).filter((f) => f !== 'manifest.json' && f !== 'signature');
  assert.deepEqual(Object.keys(manifest).sort(), hashed.sort(), 'the manifest lists every file but itself and the signature');
  for (const f of hashed) assert.equal(manifest[f], createHash('sha1').update(files[f]!).digest('hex'), `${f}'s SHA-1`);

  writeFileSync(path.join(certs.dir, 'manifest.json'), files['manifest.json']!);
  writeFileSync(path.join(certs.dir, 'signature'), files.signature!);
  const verify = (manifestFile: string): string =>
    execFileSync(
      'openssl',
      [
        'smime',
        '-verify',
        '-binary',
        '-inform',
        'DER',
        '-in',
        'signature',
        '-content',
        manifestFile,
        '-CAfile',
        certs.caFile,
        '-purpose',
        'any',
        '-out',
        '/dev/null',
      ],
      { cwd: certs.dir, stdio: 'pipe' },
    ).toString();
  verify('manifest.json');
  // The check can fail: a manifest changed by one byte does not verify.
  writeFileSync(path.join(certs.dir, 'tampered.json'), `${strFromU8(files['manifest.json']!)} `);
  assert.throws(() => verify('tampered.json'));
  // Signed by the pass certificate, with the WWDR intermediate in the signature.
  const signers = execFileSync('openssl', ['pkcs7', '-inform', 'DER', '-in', 'signature', '-print_certs', '-noout'], {
    cwd: certs.dir,
  }).toString();
  assert.match(signers, new RegExp(`Pass Type ID: ${PASS_TYPE_ID.replace(/\./g, '\\.')}`));
  assert.match(signers, /Test Worldwide Developer Relations/);

  assert.equal(json.passTypeIdentifier, PASS_TYPE_ID);
  assert.equal(json.teamIdentifier, TEAM_ID);
  assert.equal(json.webServiceURL, 'http://localhost:3000/wallet/apple');
  const [stored] = await t.app.services.db.query<{ expires_at: number }>('SELECT expires_at FROM tickets WHERE id = $1', [ticket.id]);
  assert.equal(json.expirationDate, new Date(Number(stored!.expires_at)).toISOString(), 'the pass expires with the ticket');
  assert.equal(json.generic.primaryFields[0].value, ticket.display_number);
  assert.equal(json.generic.secondaryFields[0].value, 'We’re preparing your order');
  assert.match(json.generic.secondaryFields[0].changeMessage, /%@/);
  assert.equal(json.barcodes[0].format, 'PKBarcodeFormatQR');
  assert.equal(json.barcodes[0].message, ticket.url);
  assert.ok(json.authenticationToken.length >= 16);
  assert.notEqual(json.serialNumber, ticket.id);
  assert.ok(!JSON.stringify(json).includes('4155550123'), 'no phone number on the pass');
  assert.ok(!JSON.stringify(json).includes(ticket.id), 'no ticket id on the pass');

  // Each "Add" is a pass of its own: another serial and token.
  const again = readPkpass(new Uint8Array(await (await download(t, ticket)).arrayBuffer())).json;
  assert.notEqual(again.serialNumber, json.serialNumber);
  assert.notEqual(again.authenticationToken, json.authenticationToken);
  // The token is kept only hashed.
  const rows = await t.app.services.db.query<{ auth_token_hash: string }>(
    'SELECT auth_token_hash FROM wallet_passes WHERE ticket_id = $1',
    [ticket.id],
  );
  assert.equal(rows.length, 2);
  for (const r of rows) assert.ok(![json.authenticationToken, again.authenticationToken].includes(r.auth_token_hash));
});

test('a closed ticket, an unknown link and a service without a Pass Type ID serve no pass', async () => {
  const ticket = await newTicket(t);
  assert.equal((await t.request('POST', `/v1/tickets/${ticket.id}/collect`)).status, 200);
  const closed = await download(t, ticket);
  assert.equal(closed.status, 404);
  assert.match(closed.headers.get('content-type') ?? '', /application\/problem\+json/);
  assert.equal((await fetch(`${t.url}/t/AAAAAAAAAAAAAAAAAAAAAAAAAA/wallet/apple.pkpass`)).status, 404);
  const other = await newTicket(plain);
  assert.equal((await download(plain, other)).status, 404);
  assert.equal((await fetch(`${plain.url}/wallet/apple/v1/log`, { method: 'POST' })).status, 404);
});

test('a half-configured or mismatched Pass Type ID stops the start with a message', () => {
  const env = certs.env('https://127.0.0.1:9');
  assert.throws(() => loadConfig({ APPLE_PASS_TYPE_ID: PASS_TYPE_ID }), /must be set together/);
  assert.throws(
    () => loadConfig({ ...env, APPLE_PASS_KEY_FILE: path.join(certs.dir, 'server.key') }),
    /does not belong to APPLE_PASS_CERT/,
  );
  assert.throws(() => loadConfig({ ...env, APPLE_TEAM_ID: 'x' }), /APPLE_TEAM_ID/);
  assert.throws(() => loadConfig({ ...env, APNS_URL: 'http://api.push.apple.com' }), /APNS_URL/);
  assert.equal(loadConfig({}).appleWallet, null);
  assert.equal(loadConfig(env).appleWallet?.passTypeId, PASS_TYPE_ID);
});

test('the customer page offers the pass: the badge to iPhones and Mac Safari, a link elsewhere, nothing once closed or unconfigured', async () => {
  const ticket = await newTicket(t);
  const page = async (app: TestApp, url: string, ua: string) => (await fetch(local(app, url), { headers: { 'user-agent': ua } })).text();
  const iphone =
    'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1';
  const macSafari = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Safari/605.1.15';
  const macChrome = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
  const href = `${new URL(ticket.url).pathname}/wallet/apple.pkpass`;
  assert.match(await page(t, ticket.url, iphone), new RegExp(`class="wallet-badge" id="wallet-apple" href="${href}"`));
  assert.match(await page(t, ticket.url, macSafari), /class="wallet-badge"/);
  const elsewhere = await page(t, ticket.url, macChrome);
  assert.match(elsewhere, new RegExp(`class="wallet-link" id="wallet-apple" href="${href}">Add to Apple Wallet<`));
  assert.doesNotMatch(elsewhere, /wallet-google/, 'no Google button without Google Wallet');
  const other = await newTicket(plain);
  assert.doesNotMatch(await page(plain, other.url, iphone), /wallet-apple/, 'no button without a Pass Type ID');
  await t.request('POST', `/v1/tickets/${ticket.id}/cancel`, { body: {} });
  assert.doesNotMatch(await page(t, ticket.url, iphone), /wallet-apple/, 'no button once the ticket closed');
});
