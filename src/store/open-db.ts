// Chooses the store from configuration. Kept apart from the composition root (app.ts) so that
// short CLI commands (keys create, migrate, …) open the store without loading the HTTP server.
import path from 'node:path';
import type { Config } from '../core/config.ts';
import type { Db } from '../core/db.ts';
import { SqliteDb } from './sqlite/sqlite-db.ts';
import { PostgresDb } from './postgres/postgres-db.ts';

/** The embedded store's file in DATA_DIR (backup and restore name it too). */
export const sqliteFile = (dataDir: string): string => path.join(dataDir, 'readybell.db');

export function openDb(config: Config): Db {
  if (config.databaseUrl !== null) return new PostgresDb({ url: config.databaseUrl });
  return new SqliteDb({ file: sqliteFile(config.dataDir), synchronous: config.sqliteSynchronous, maxBatch: config.groupCommit.maxBatch });
}
