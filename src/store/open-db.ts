// Chooses the store from configuration. Kept apart from the composition root (app.ts) so that
// short CLI commands (keys create, migrate, …) open the store without loading the HTTP server.
import path from 'node:path';
import type { Config } from '../config.ts';
import type { Db } from './db.ts';
import { SqliteDb } from './sqlite/sqlite-db.ts';
import { PostgresDb } from './postgres/postgres-db.ts';

export function openDb(config: Config): Db {
  if (config.databaseUrl !== null) return new PostgresDb({ url: config.databaseUrl });
  return new SqliteDb({ file: path.join(config.dataDir, 'readybell.db'), synchronous: config.sqliteSynchronous, maxBatch: config.groupCommit.maxBatch });
}
