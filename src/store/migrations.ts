// Forward-only, numbered migrations shared by both engines (`NNNN_name.sql`); a file named
// `NNNN_name.postgres.sql` or `NNNN_name.sqlite.sql` applies to that engine only.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import type { Dialect } from '../core/db.ts';

const DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

export type Migration = { version: number; name: string; sql: string };

export function loadMigrations(dialect: Dialect): Migration[] {
  const files = readdirSync(DIR).filter((f) => /^\d{4}_[a-z0-9_]+(\.(sqlite|postgres))?\.sql$/.test(f));
  const out: Migration[] = [];
  for (const file of files.sort()) {
    const only = /\.(sqlite|postgres)\.sql$/.exec(file)?.[1];
    if (only !== undefined && only !== dialect) continue;
    out.push({ version: Number(file.slice(0, 4)), name: file.replace(/\.sql$/, ''), sql: readFileSync(path.join(DIR, file), 'utf8') });
  }
  return out;
}

export const MIGRATIONS_TABLE_SQL = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  applied_at BIGINT NOT NULL
)`;
