// One `readybell serve` per embedded data directory (decision 0045). The embedded store is one
// process's: its live pages, rings and buckets live in that process, so a second server on the
// same directory would answer requests whose rings never reach the pages open on the first.
//
// The lock is SQLite's own exclusive lock (a POSIX fcntl lock, LockFileEx on Windows) on a file
// of its own in DATA_DIR, held by a transaction that is never committed. The operating system
// drops it when the process ends however it ends, SIGKILL and power loss included, so a crash
// never blocks the next start, and no pid is ever mistaken for ours after being reused. Who holds
// it (pid, port) is written beside it, because a held lock cannot be read through; that note is
// believed only while the lock is held. The store file itself is not locked: `readybell backup`
// and the other short commands still open it beside a running server.
import { DatabaseSync } from 'node:sqlite';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const SERVE_LOCK_FILE = 'readybell.serve.lock';
export const SERVE_HOLDER_FILE = 'readybell.serve.json';

export type ServeHolder = { pid: number; port: number; started_at: string };

export type ServeLock = {
  /** Records where the holder listens (called again once the port is known for sure). */
  describe(holder: ServeHolder): void;
  release(): void;
};

export class DataDirInUseError extends Error {
  constructor(dataDir: string, holder: ServeHolder | null) {
    const who = holder === null ? 'another process' : `process ${holder.pid}, port ${holder.port}, since ${holder.started_at}`;
    super(
      `readybell serve is already running on the embedded store in ${dataDir} (${who}). ` +
        'The embedded store belongs to one process: stop that server first, or give this one another DATA_DIR. ' +
        'To run several nodes on the same data, use PostgreSQL (DATABASE_URL) and Redis (REDIS_URL); see docs/deployment.md.',
    );
    this.name = 'DataDirInUseError';
  }
}

function readHolder(dataDir: string): ServeHolder | null {
  try {
    const h = JSON.parse(readFileSync(path.join(dataDir, SERVE_HOLDER_FILE), 'utf8')) as Partial<ServeHolder>;
    return typeof h.pid === 'number' && typeof h.port === 'number' && typeof h.started_at === 'string' ? (h as ServeHolder) : null;
  } catch {
    return null;
  }
}

/** Takes the data directory for this process, or throws DataDirInUseError naming who has it. */
export function lockDataDir(dataDir: string): ServeLock {
  mkdirSync(dataDir, { recursive: true });
  // timeout 0: a held lock is answered at once, not waited for.
  const db = new DatabaseSync(path.join(dataDir, SERVE_LOCK_FILE), { timeout: 0 });
  try {
    db.exec('PRAGMA locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
  } catch (err) {
    db.close();
    if ((err as { errcode?: number }).errcode === 5 /* SQLITE_BUSY */) throw new DataDirInUseError(dataDir, readHolder(dataDir));
    throw err;
  }
  const holderFile = path.join(dataDir, SERVE_HOLDER_FILE);
  return {
    describe(holder) {
      // Written whole, then renamed: a reader never sees half a note.
      writeFileSync(`${holderFile}.tmp`, JSON.stringify(holder));
      renameSync(`${holderFile}.tmp`, holderFile);
    },
    release() {
      if (db.isOpen) db.close();
    },
  };
}
