// Which store a test run uses: the embedded one by default, PostgreSQL when TEST_DATABASE_URL is
// set. Each test app gets its own throw-away database (PostgreSQL) or directory (SQLite), so tests
// never depend on leftovers and can run in parallel.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? null;
export const storeName = TEST_DATABASE_URL ? 'postgres' : 'sqlite';
/** With TEST_REDIS_URL every test app shares buckets and live updates through Redis, as nodes do. */
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? null;

export type TestStore = { env: Record<string, string>; drop(): Promise<void> };

export async function createTestStore(): Promise<TestStore> {
  if (TEST_DATABASE_URL === null) {
    const dir = mkdtempSync(path.join(tmpdir(), 'readybell-test-'));
    return { env: { DATA_DIR: dir, ...redisEnv() }, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const name = `rb_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return {
    env: { DATABASE_URL: url.toString(), ...redisEnv() },
    drop: async () => {
      const c = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

function redisEnv(): Record<string, string> {
  // Every test app gets its own key prefix: test files run in parallel against one Redis, and
  // one file's login throttling or buckets must not leak into another's.
  return TEST_REDIS_URL === null ? {} : { REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: `rbt:${randomBytes(4).toString('hex')}:` };
}

// Options for a test that can run only on one engine or with Redis: elsewhere it is still
// registered, and reported skipped with the reason, so a suite's closing counts show what did not
// run here instead of losing it (issue 23). As options rather than a wrapper of `test`, so the
// report names the test's own file.
/** For what exists only on PostgreSQL (the shared create statements, for one). */
export const onlyOnPostgres = { skip: storeName === 'postgres' ? false : 'PostgreSQL only: runs in the PostgreSQL + Redis suite' };
/** For what exists only on the embedded store (its backup, for one). */
export const onlyOnEmbedded = { skip: storeName === 'sqlite' ? false : 'embedded store only: runs in the embedded suite' };
/** For what needs a Redis server. */
export const needsRedis = { skip: TEST_REDIS_URL !== null ? false : 'needs Redis: runs in the PostgreSQL + Redis suite (TEST_REDIS_URL)' };
/** For several `readybell serve` processes, which share PostgreSQL and Redis. */
export const needsCluster = {
  skip: TEST_DATABASE_URL !== null && TEST_REDIS_URL !== null ? false : 'needs PostgreSQL and Redis: runs in the PostgreSQL + Redis suite',
};
