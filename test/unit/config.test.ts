// Configuration: every environment variable is parsed once, with defaults, and every bad value is
// reported by name with what was given, all problems at once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { configProblems } from '../helpers/config-problems.ts';

function rejects(env: Record<string, string>, message: RegExp): void {
  const found = configProblems(env);
  assert.equal(found.length, 1, `expected one problem for ${JSON.stringify(env)}, got ${JSON.stringify(found)}`);
  assert.match(found[0]!, message);
}

test('defaults: a quickstart needs no environment at all', () => {
  const c = loadConfig({});
  assert.equal(c.port, 3000);
  assert.equal(c.host, '127.0.0.1');
  assert.equal(c.publicUrl, 'http://localhost:3000');
  assert.equal(c.dataDir, path.resolve('./data'));
  assert.equal(c.databaseUrl, null);
  assert.equal(c.redisUrl, null);
  assert.equal(c.logLevel, 'info');
  assert.equal(c.tls, null);
  assert.equal(c.trustProxy, false);
  assert.equal(c.sqliteSynchronous, 'FULL');
  assert.deepEqual(c.rateLimits, { writes: { capacity: 120, refillPerSecond: 1 }, reads: { capacity: 600, refillPerSecond: 10 } });
  assert.equal(c.webhookAllowPrivate, true, 'the embedded quickstart may call local webhook receivers');
});

test('PORT: a whole number from 0 to 65535; the default PUBLIC_URL follows it', () => {
  const c = loadConfig({ PORT: '8080' });
  assert.equal(c.port, 8080);
  assert.equal(c.publicUrl, 'http://localhost:8080');
  assert.equal(loadConfig({ PORT: ' 0 ' }).port, 0);
  for (const bad of ['abc', '-1', '65536', '80.5', '3000abc'])
    rejects({ PORT: bad }, new RegExp(`^PORT must be a whole number from 0 to 65535 \\(got "${bad}"\\)$`));
  assert.equal(loadConfig({ PORT: '' }).port, 3000, 'an empty value means unset');
});

test('HOST: taken as given', () => {
  assert.equal(loadConfig({ HOST: '0.0.0.0' }).host, '0.0.0.0');
  assert.equal(loadConfig({ HOST: '::1' }).host, '::1');
});

test('PUBLIC_URL: an http(s) URL, kept without a trailing slash', () => {
  assert.equal(loadConfig({ PUBLIC_URL: 'https://pickup.example.com/' }).publicUrl, 'https://pickup.example.com');
  assert.equal(loadConfig({ PUBLIC_URL: 'https://example.com/readybell//' }).publicUrl, 'https://example.com/readybell');
  for (const bad of ['pickup.example.com', 'ftp://example.com', 'not a url'])
    rejects({ PUBLIC_URL: bad }, /^PUBLIC_URL must be an http\(s\) URL/);
});

test('DATA_DIR: resolved to an absolute path', () => {
  assert.equal(loadConfig({ DATA_DIR: 'var/rb' }).dataDir, path.resolve('var/rb'));
  assert.equal(loadConfig({ DATA_DIR: '/srv/readybell' }).dataDir, '/srv/readybell');
});

test('DATABASE_URL: a postgres URL switches to PostgreSQL; anything else is refused', () => {
  const c = loadConfig({ DATABASE_URL: 'postgres://rb:secret@db.internal:5432/readybell' });
  assert.equal(c.databaseUrl, 'postgres://rb:secret@db.internal:5432/readybell');
  assert.equal(c.webhookAllowPrivate, false, 'a multi-node deployment refuses private webhook targets by default');
  assert.equal(loadConfig({ DATABASE_URL: 'postgresql://localhost/rb' }).databaseUrl, 'postgresql://localhost/rb');
  const found = configProblems({ DATABASE_URL: 'mysql://rb:secret@db/readybell' });
  assert.equal(found.length, 1);
  assert.match(found[0]!, /^DATABASE_URL must be a postgres:\/\/ or postgresql:\/\/ URL/);
  assert.doesNotMatch(found[0]!, /secret/, 'a password in a bad URL is not echoed');
});

test('REDIS_URL: accepted as redis:// or rediss://', () => {
  assert.equal(loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379' }).redisUrl, 'redis://127.0.0.1:6379');
  assert.equal(loadConfig({ REDIS_URL: 'rediss://cache.example.com' }).redisUrl, 'rediss://cache.example.com');
  rejects({ REDIS_URL: 'http://127.0.0.1:6379' }, /^REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL/);
});

test("LOG_LEVEL: one of pino's levels, any case", () => {
  assert.equal(loadConfig({ LOG_LEVEL: 'DEBUG' }).logLevel, 'debug');
  assert.equal(loadConfig({ LOG_LEVEL: 'silent' }).logLevel, 'silent');
  rejects({ LOG_LEVEL: 'verbose' }, /^LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent \(got "verbose"\)$/);
});

test('TLS_CERT_FILE and TLS_KEY_FILE: both or neither, and readable', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'readybell-tls-'));
  try {
    const cert = path.join(dir, 'cert.pem');
    const key = path.join(dir, 'key.pem');
    writeFileSync(cert, 'CERT');
    writeFileSync(key, 'KEY');
    const c = loadConfig({ TLS_CERT_FILE: cert, TLS_KEY_FILE: key });
    assert.equal(c.tls?.cert.toString(), 'CERT');
    assert.equal(c.tls?.key.toString(), 'KEY');
    rejects({ TLS_CERT_FILE: cert }, /^TLS_CERT_FILE and TLS_KEY_FILE must be set together/);
    rejects({ TLS_KEY_FILE: key }, /^TLS_CERT_FILE and TLS_KEY_FILE must be set together/);
    rejects(
      { TLS_CERT_FILE: cert, TLS_KEY_FILE: path.join(dir, 'missing.pem') },
      /^cannot read TLS_CERT_FILE\/TLS_KEY_FILE: .*missing\.pem/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('TRUST_PROXY: false by default, true, or a list of proxy addresses', () => {
  assert.equal(loadConfig({ TRUST_PROXY: 'false' }).trustProxy, false);
  assert.equal(loadConfig({ TRUST_PROXY: 'TRUE' }).trustProxy, true);
  assert.deepEqual(loadConfig({ TRUST_PROXY: '10.0.0.1, 10.0.1.0/24,' }).trustProxy, ['10.0.0.1', '10.0.1.0/24']);
});

test('tuning variables are bounded numbers', () => {
  const c = loadConfig({
    RATE_LIMIT_WRITES_BURST: '10',
    RATE_LIMIT_WRITES_PER_SECOND: '0.5',
    RATE_LIMIT_READS_BURST: '50',
    RATE_LIMIT_READS_PER_SECOND: '5',
    BODY_LIMIT_BYTES: '2048',
    GROUP_COMMIT_MAX_BATCH: '1',
    SQLITE_SYNCHRONOUS: 'normal',
  });
  assert.deepEqual(c.rateLimits, { writes: { capacity: 10, refillPerSecond: 0.5 }, reads: { capacity: 50, refillPerSecond: 5 } });
  assert.equal(c.bodyLimitBytes, 2048);
  assert.equal(c.groupCommit.maxBatch, 1);
  assert.equal(c.sqliteSynchronous, 'NORMAL');
  rejects({ RATE_LIMIT_WRITES_BURST: '0' }, /^RATE_LIMIT_WRITES_BURST must be a whole number from 1 to/);
  rejects({ RATE_LIMIT_READS_PER_SECOND: 'fast' }, /^RATE_LIMIT_READS_PER_SECOND must be a number of at least 0.001 \(got "fast"\)$/);
  rejects({ BODY_LIMIT_BYTES: '100' }, /^BODY_LIMIT_BYTES must be a whole number from 1024 to/);
  rejects({ SQLITE_SYNCHRONOUS: 'OFF' }, /^SQLITE_SYNCHRONOUS must be FULL or NORMAL$/);
  rejects({ WEBHOOK_ALLOW_PRIVATE: 'maybe' }, /^WEBHOOK_ALLOW_PRIVATE must be true or false \(got "maybe"\)$/);
  assert.equal(loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'no' }).webhookAllowPrivate, false);
});

test('METRICS_PORT: no metrics listener unless set; loopback unless METRICS_HOST says otherwise; never the public port', () => {
  assert.equal(loadConfig({}).metrics, null);
  assert.deepEqual(loadConfig({ METRICS_PORT: '9464' }).metrics, { port: 9464, host: '127.0.0.1' });
  assert.deepEqual(loadConfig({ METRICS_PORT: '9464', METRICS_HOST: '0.0.0.0' }).metrics, { port: 9464, host: '0.0.0.0' });
  assert.deepEqual(loadConfig({ METRICS_PORT: '0', PORT: '0' }).metrics, { port: 0, host: '127.0.0.1' }, '0: any free port, as for PORT');
  rejects({ METRICS_PORT: '70000' }, /^METRICS_PORT must be a whole number from 0 to 65535 \(got "70000"\)$/);
  rejects({ METRICS_PORT: '3000' }, /^METRICS_PORT must differ from PORT \(both 3000\)/);
});

test('REQUEST_TIMEOUT_MS: 15 s by default, from 50 ms to 5 minutes', () => {
  assert.equal(loadConfig({}).requestTimeoutMs, 15_000);
  assert.equal(loadConfig({ REQUEST_TIMEOUT_MS: '300' }).requestTimeoutMs, 300);
  rejects({ REQUEST_TIMEOUT_MS: '0' }, /^REQUEST_TIMEOUT_MS must be a whole number from 50 to 300000 \(got "0"\)$/);
  rejects({ REQUEST_TIMEOUT_MS: '1h' }, /^REQUEST_TIMEOUT_MS must be a whole number from 50 to 300000/);
});

test('load shedding: past 1 s of event-loop delay by default, no heap limit unless set, 0 turns a limit off', () => {
  assert.deepEqual(loadConfig({}).shedding, { eventLoopDelayMs: 1000, heapUsedBytes: 0, sampleIntervalMs: 1000 });
  const c = loadConfig({ SHED_EVENT_LOOP_DELAY_MS: '0', SHED_HEAP_USED_BYTES: '1500000000', SHED_SAMPLE_INTERVAL_MS: '250' });
  assert.deepEqual(c.shedding, { eventLoopDelayMs: 0, heapUsedBytes: 1_500_000_000, sampleIntervalMs: 250 });
  rejects({ SHED_EVENT_LOOP_DELAY_MS: '-1' }, /^SHED_EVENT_LOOP_DELAY_MS must be a whole number from 0 to 60000 \(got "-1"\)$/);
  rejects({ SHED_HEAP_USED_BYTES: '1.5GB' }, /^SHED_HEAP_USED_BYTES must be a whole number from 0 to/);
  rejects({ SHED_SAMPLE_INTERVAL_MS: '5' }, /^SHED_SAMPLE_INTERVAL_MS must be a whole number from 10 to 60000/);
});

test('every problem is reported at once, in one readable message', () => {
  try {
    loadConfig({ PORT: 'abc', LOG_LEVEL: 'loud', DATABASE_URL: 'sqlite://x' });
    assert.fail('loadConfig accepted three bad values');
  } catch (err) {
    assert.ok(err instanceof ConfigError);
    assert.equal(err.problems.length, 3);
    assert.match(err.message, /^Invalid configuration:\n {2}- PORT .*\n {2}- DATABASE_URL .*\n {2}- LOG_LEVEL /);
  }
});

test('SQUARE_*: the application is set whole or not at all; the webhook URL defaults to the public one', () => {
  assert.equal(loadConfig({}).square, null);
  const app = { SQUARE_APPLICATION_ID: 'sq0idp-a', SQUARE_APPLICATION_SECRET: 'sq0csp-s', SQUARE_WEBHOOK_SIGNATURE_KEY: 'k' };
  assert.deepEqual(loadConfig({ ...app, PUBLIC_URL: 'https://pickup.example.com/' }).square, {
    applicationId: 'sq0idp-a',
    applicationSecret: 'sq0csp-s',
    environment: 'sandbox',
    webhookSignatureKey: 'k',
    webhookUrl: 'https://pickup.example.com/connectors/square/webhook',
    baseUrl: null,
  });
  assert.equal(loadConfig({ ...app, SQUARE_ENVIRONMENT: 'Production' }).square?.environment, 'production');
  rejects({ ...app, SQUARE_ENVIRONMENT: 'staging' }, /SQUARE_ENVIRONMENT must be sandbox or production/);
  rejects({ SQUARE_APPLICATION_ID: 'sq0idp-a', SQUARE_WEBHOOK_SIGNATURE_KEY: 'k' }, /needs SQUARE_APPLICATION_SECRET/);
  rejects({ SQUARE_APPLICATION_ID: 'sq0idp-a', SQUARE_APPLICATION_SECRET: 's' }, /needs SQUARE_WEBHOOK_SIGNATURE_KEY/);
  rejects({ SQUARE_APPLICATION_SECRET: 's' }, /need SQUARE_APPLICATION_ID/);
  rejects({ ...app, SQUARE_WEBHOOK_URL: 'not a url' }, /SQUARE_WEBHOOK_URL must be an http\(s\) URL/);
});

test('SHOPIFY_*: the key and secret go together; SHOPIFY_API_URL is an origin', () => {
  assert.equal(loadConfig({}).shopify, null);
  const app = { SHOPIFY_API_KEY: 'client-id', SHOPIFY_API_SECRET: 'client-secret' };
  assert.deepEqual(loadConfig(app).shopify, { apiKey: 'client-id', apiSecret: 'client-secret', apiUrl: null });
  assert.equal(loadConfig({ ...app, SHOPIFY_API_URL: 'http://127.0.0.1:9000/' }).shopify?.apiUrl, 'http://127.0.0.1:9000');
  rejects({ SHOPIFY_API_KEY: 'client-id' }, /SHOPIFY_API_KEY and SHOPIFY_API_SECRET go together/);
  rejects({ SHOPIFY_API_SECRET: 's' }, /SHOPIFY_API_KEY and SHOPIFY_API_SECRET go together/);
  rejects({ SHOPIFY_API_URL: 'https://proxy.example' }, /SHOPIFY_API_URL needs both/);
  rejects({ ...app, SHOPIFY_API_URL: 'https://proxy.example/admin' }, /SHOPIFY_API_URL must be an http\(s\) origin/);
  rejects({ ...app, SHOPIFY_API_URL: 'not a url' }, /SHOPIFY_API_URL must be an http\(s\) origin/);
});
