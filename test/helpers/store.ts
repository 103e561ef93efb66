// Which store a test run uses: the embedded one by default, PostgreSQL when TEST_DATABASE_URL is
// set. Each test app gets its own throw-away database (PostgreSQL) or directory (SQLite), so tests
// never depend on leftovers and can run in parallel.
import { cpSync, existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { loadConfig } from '../../src/config.ts';
import { openDb } from '../../src/store/open-db.ts';

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? null;
export const storeName = TEST_DATABASE_URL ? 'postgres' : 'sqlite';
/** With TEST_REDIS_URL every test app shares buckets and live updates through Redis, as nodes do. */
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? null;

export type TestStore = { env: Record<string, string>; drop(): Promise<void> };

/**
 * The PostgreSQL suite's migrated template (test/run.ts names it, and drops it at the end): a
 * store that will be migrated anyway (an app's) is copied from it instead of migrated again, which
 * took 240 ms of PostgreSQL's time per app. The first process that needs it creates it.
 */
const PG_TEMPLATE = process.env.TEST_PG_TEMPLATE ?? null;
// Any constant: the processes of one suite take turns creating the template.
const TEMPLATE_LOCK = 7_261_853;

/** The address of database `name` on the test server. */
function databaseUrl(name: string): string {
  const url = new URL(TEST_DATABASE_URL as string);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Applies every migration to the store `env` names, as an app's start would, and closes it. */
async function migrateStore(env: Record<string, string>): Promise<void> {
  const db = openDb(loadConfig({ LOG_LEVEL: 'silent', ...env }));
  try {
    await db.migrate();
  } finally {
    await db.close();
  }
}

async function ensurePgTemplate(admin: pg.Client, template: string): Promise<void> {
  await admin.query('SELECT pg_advisory_lock($1)', [TEMPLATE_LOCK]);
  try {
    if ((await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [template])).rowCount === 1) return;
    const building = `${template}_building`;
    await admin.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${building}`);
    await migrateStore({ DATABASE_URL: databaseUrl(building) });
    // Renamed only once whole: a process stopped half-way leaves no template that looks finished.
    await admin.query(`ALTER DATABASE ${building} RENAME TO ${template}`);
  } finally {
    await admin.query('SELECT pg_advisory_unlock($1)', [TEMPLATE_LOCK]);
  }
}

/**
 * The embedded suite's migrated template, a DATA_DIR holding only the migrated store file (test/run.ts
 * names it and removes it at the end): copied, it spares each app its migration (0.1–0.25 s).
 * Built aside and renamed into place, so a process never copies a half-made one; when two build
 * it at once, the first rename wins and the other's copy is dropped.
 */
const SQLITE_TEMPLATE = process.env.TEST_SQLITE_TEMPLATE ?? null;

async function ensureSqliteTemplate(template: string): Promise<void> {
  if (existsSync(template)) return;
  const building = mkdtempSync(`${template}.building-`);
  await migrateStore({ DATA_DIR: building });
  try {
    renameSync(building, template);
  } catch {
    rmSync(building, { recursive: true, force: true });
  }
}

/**
 * A throw-away store. `migrated`: the caller will migrate it anyway (an app does at start), so it
 * may come already migrated, copied from the run's template; otherwise it is empty.
 */
export async function createTestStore(opts: { migrated?: boolean } = {}): Promise<TestStore> {
  if (TEST_DATABASE_URL === null) {
    const dir = mkdtempSync(path.join(tmpdir(), 'readybell-test-'));
    if (opts.migrated === true && SQLITE_TEMPLATE !== null) {
      await ensureSqliteTemplate(SQLITE_TEMPLATE);
      cpSync(SQLITE_TEMPLATE, dir, { recursive: true });
    }
    return { env: { DATA_DIR: dir, ...redisEnv() }, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const name = `rb_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  try {
    if (opts.migrated === true && PG_TEMPLATE !== null) {
      await ensurePgTemplate(admin, PG_TEMPLATE);
      await admin.query(`CREATE DATABASE ${name} TEMPLATE ${PG_TEMPLATE}`);
    } else {
      await admin.query(`CREATE DATABASE ${name}`);
    }
  } finally {
    await admin.end();
  }
  return {
    env: { DATABASE_URL: databaseUrl(name), ...redisEnv() },
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
