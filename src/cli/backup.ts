// `readybell backup FILE` and `readybell restore FILE`: the embedded store only. PostgreSQL has
// its own tools, which know its WAL and can restore to a point in time; these commands say so
// rather than half-do that job.
import type { Config } from '../core/config.ts';
import { AppError } from '../domain/errors.ts';
import { sqliteFile } from '../store/open-db.ts';
import { backupStore, restoreStore, type CopyFacts } from '../store/sqlite/backup.ts';

export type BackupVerb = 'backup' | 'restore';

const ON_POSTGRES: Record<BackupVerb, string> = {
  backup:
    'readybell backup copies the embedded store (DATA_DIR); with DATABASE_URL set your data is in PostgreSQL: back it up with pg_dump, or with base backups and WAL archiving for point-in-time recovery (see docs/deployment.md).',
  restore:
    'readybell restore puts back a backup of the embedded store (DATA_DIR); with DATABASE_URL set, restore PostgreSQL with pg_restore or from a base backup (see docs/deployment.md).',
};

const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

const present = (f: CopyFacts) => ({ file: f.file, bytes: f.bytes, tickets: f.tickets, schema_version: f.schemaVersion, ms: f.ms });

export async function runBackupCommand(
  config: Config,
  verb: BackupVerb,
  args: string[],
): Promise<{ output: Record<string, unknown>; human: string }> {
  if (config.databaseUrl !== null) throw new AppError('conflict', ON_POSTGRES[verb]);
  const [file, ...extra] = args;
  if (file === undefined || file === '' || extra.length > 0) throw new AppError('validation-failed', `Usage: readybell ${verb} FILE`);
  const store = sqliteFile(config.dataDir);
  if (verb === 'backup') {
    const f = await backupStore(store, file);
    return { output: present(f), human: `Backed up ${store} to ${f.file} (${mb(f.bytes)}, ${f.tickets} tickets, ${f.ms} ms).` };
  }
  const f = await restoreStore(file, config.dataDir, store);
  return {
    output: { ...present(f), data_dir: config.dataDir },
    human: `Restored ${file} into ${config.dataDir} (${mb(f.bytes)}, ${f.tickets} tickets). Start readybell on this DATA_DIR; it applies any newer migrations at start.`,
  };
}
