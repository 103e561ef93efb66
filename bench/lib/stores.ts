// The stores readybell is measured on, and a way to read each one behind the server's back: the
// durability check must count what reached disk, not what the server says it has.
import { DatabaseSync } from 'node:sqlite';
import { openSync, readSync, closeSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { HarnessError } from './proc.ts';

export type StoreTarget = {
  /** as shown in the table */
  label: string;
  /** added to the server's environment */
  env: Record<string, string>;
  /** Tickets whose external_ref is `tag`, read directly from the store. */
  countTickets(tag: string): Promise<number>;
  cleanup(): Promise<void>;
};

export function embeddedTarget(dataDir: string): StoreTarget {
  return {
    label: 'embedded',
    env: {},
    // Read with the server stopped: opening the file replays any WAL left behind, which is what
    // a restarted server would see.
    async countTickets(tag) {
      const file = findSqliteFile(dataDir);
      const db = new DatabaseSync(file);
      try {
        const row = db.prepare('SELECT COUNT(*) AS n FROM tickets WHERE external_ref = ?').get(tag) as { n: number | bigint };
        return Number(row.n);
      } finally {
        db.close();
      }
    },
    async cleanup() {},
  };
}

// The file's name is the store's business; the bench finds it by content so it keeps working if
// the name changes.
function findSqliteFile(dataDir: string): string {
  const candidates: string[] = [];
  const walk = (dir: string, depth: number): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory() && depth < 3) walk(full, depth + 1);
      else if (entry.isFile() && !/-(wal|shm|journal)$/.test(entry.name) && isSqlite(full)) candidates.push(full);
    }
  };
  walk(dataDir, 0);
  for (const file of candidates) {
    const db = new DatabaseSync(file);
    try {
      const t = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'tickets'").get();
      if (t !== undefined) return file;
    } catch {
      // not a database we can read; try the next one
    } finally {
      db.close();
    }
  }
  throw new HarnessError(`no SQLite file with a tickets table under ${dataDir} (found: ${candidates.join(', ') || 'none'})`);
}

function isSqlite(file: string): boolean {
  if (statSync(file).size < 100) return false;
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(16);
    readSync(fd, head, 0, 16, 0);
    return head.toString('latin1') === 'SQLite format 3\0';
  } finally {
    closeSync(fd);
  }
}

/** A throw-away database on the server `adminUrl` points at, dropped by cleanup(). */
export async function postgresTarget(adminUrl: string): Promise<StoreTarget> {
  const name = `rb_bench_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  try {
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
  } catch (err) {
    throw new HarnessError(`cannot create database ${name} via BENCH_DATABASE_URL: ${(err as Error).message}`);
  } finally {
    await admin.end().catch(() => {});
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const databaseUrl = url.toString();
  return {
    label: 'postgres',
    env: { DATABASE_URL: databaseUrl },
    async countTickets(tag) {
      const c = new pg.Client({ connectionString: databaseUrl });
      await c.connect();
      try {
        const r = await c.query<{ n: string }>('SELECT COUNT(*) AS n FROM tickets WHERE external_ref = $1', [tag]);
        return Number(r.rows[0]?.n ?? 0);
      } finally {
        await c.end();
      }
    },
    async cleanup() {
      const c = new pg.Client({ connectionString: adminUrl });
      try {
        await c.connect();
        // FORCE: a server killed mid-run may leave sessions behind that would block the drop.
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } catch (err) {
        console.error(`warning: could not drop ${name}: ${(err as Error).message}`);
      } finally {
        await c.end().catch(() => {});
      }
    },
  };
}
