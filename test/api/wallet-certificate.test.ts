// Apple's pass certificate expires a year after it is made (issue 36 item 13): from 30 days before
// its end, /readyz says so in its details, the log warns at start, and its end is a metric an
// operator alerts on. A certificate with a year left says nothing in the log.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { makeWalletCerts, type WalletCerts } from '../helpers/wallet-certs.ts';
import { PASS_CERTIFICATE_EXPIRY_METRIC } from '../../src/channels/wallet/apple/certificate-watch.ts';

const started: Array<{ app: TestApp; certs: WalletCerts }> = [];
after(async () => {
  for (const s of started) {
    await s.app.close();
    s.certs.drop();
  }
});

async function withCertificateFor(days: number): Promise<{ app: TestApp; log: string[] }> {
  const certs = makeWalletCerts({ passDays: days });
  const log: string[] = [];
  const app = await startTestApp({
    env: { ...certs.env('https://127.0.0.1:9'), LOG_LEVEL: 'warn' },
    logDestination: { write: (line: string) => void log.push(line) },
  });
  started.push({ app, certs });
  return { app, log };
}

test('a certificate 10 days from its end: /readyz, the log and the metric say so', async () => {
  const { app, log } = await withCertificateFor(10);
  const ready = await app.request('GET', '/readyz', { key: null });
  assert.equal(ready.status, 200, 'the node stays ready');
  assert.equal(ready.body.status, 'ready');
  const apple = ready.body.channels['apple-wallet'];
  assert.equal(apple.certificate, 'expiring');
  assert.ok(apple.days_left >= 9 && apple.days_left <= 10, String(apple.days_left));
  const end = Date.parse(apple.certificate_expires_at);
  assert.ok(Math.abs(end - (Date.now() + 10 * 86_400_000)) < 86_400_000, apple.certificate_expires_at);

  const warning = log.map((l) => JSON.parse(l)).find((l) => /Apple pass certificate expires in/.test(l.msg));
  assert.ok(warning, `a warning at start: ${log.join('')}`);
  assert.equal(warning.level, 40);
  assert.equal(warning.expires_at, apple.certificate_expires_at);

  const metrics = await app.app.services.metrics!.registry.metrics();
  const value = new RegExp(`^${PASS_CERTIFICATE_EXPIRY_METRIC} (\\d+)$`, 'm').exec(metrics)?.[1];
  assert.equal(Number(value), Math.floor(end / 1000));
});

test('a certificate with a year left: /readyz says ok, the log says nothing', async () => {
  const { app, log } = await withCertificateFor(365);
  const ready = await app.request('GET', '/readyz', { key: null });
  assert.equal(ready.body.channels['apple-wallet'].certificate, 'ok');
  assert.ok(ready.body.channels['apple-wallet'].days_left >= 364);
  assert.deepEqual(
    log.filter((l) => /certificate/.test(l)),
    [],
  );
});
