// Online backup and restore of the embedded store (decision 0016). The copy is SQLite's own
// (the online backup API), taken from a separate read-only connection while the server writes.
//
// The backup holds one read transaction open for its whole run: in WAL mode a reader never blocks
// the writer, and a pinned snapshot keeps other connections' commits from restarting the copy
// (without it the copy starts over after every commit and never ends under steady load).
import { backup, DatabaseSync } from 'node:sqlite';
import {
  closeSync,
  existsSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { AppError } from '../../domain/errors.ts';
import { loadMigrations } from '../migrations.ts';

/** Pages copied per step (4 KiB each); between steps the copy yields to the event loop. */
const PAGES_PER_STEP = 1024;

export type CopyFacts = { file: string; bytes: number; tickets: number; schemaVersion: number; ms: number };

const SIDECARS = ['', '-journal', '-wal', '-shm'];

function removeWithSidecars(file: string): void {
  for (const s of SIDECARS) rmSync(file + s, { force: true });
}

/** SQLite's own words, prefixed with which file they are about. */
function sqliteProblem(label: string, err: unknown): AppError {
  if (err instanceof AppError) return err;
  const message = (err as Error).message.replace(/\.$/, '');
  if (/not a database/i.test(message)) return new AppError('validation-failed', `${label} is not a readybell store (${message}).`);
  if (/malformed|corrupt/i.test(message)) return new AppError('validation-failed', `${label} is damaged (${message}).`);
  return new AppError('internal', `${label} could not be copied: ${message}.`);
}

function fsyncPath(p: string): void {
  const fd = openSync(p, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Makes a fresh copy self-contained (one file, no -wal beside it), checks it is a whole readybell
 * store, and flushes it to disk. Throws, naming `label`, when it is not.
 */
function sealCopy(file: string, label: string): { tickets: number; schemaVersion: number } {
  let facts: { tickets: number; schemaVersion: number };
  const db = new DatabaseSync(file);
  try {
    db.exec('PRAGMA journal_mode = DELETE');
    facts = checkStore(db, label);
  } catch (err) {
    throw sqliteProblem(label, err);
  } finally {
    db.close();
  }
  fsyncPath(file);
  return facts;
}

function checkStore(db: DatabaseSync, label: string): { tickets: number; schemaVersion: number } {
  const integrity = db.prepare('PRAGMA integrity_check').all() as Array<{ integrity_check: string }>;
  if (integrity.length !== 1 || integrity[0]!.integrity_check !== 'ok') {
    throw new AppError(
      'validation-failed',
      `${label} is damaged (SQLite integrity_check: ${integrity[0]?.integrity_check ?? 'no answer'}).`,
    );
  }
  const known = new Map(loadMigrations('sqlite').map((m) => [m.version, m.name]));
  const hasTable = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get() !== undefined;
  const applied = hasTable
    ? (db.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all() as Array<{ version: number; name: string }>)
    : [];
  if (applied.length === 0) throw new AppError('validation-failed', `${label} is not a readybell store (it has no schema_migrations).`);
  for (const m of applied) {
    const ours = known.get(Number(m.version));
    if (ours === undefined) {
      throw new AppError(
        'validation-failed',
        `${label} was written by a newer readybell (migration ${m.name}); restore it with that version or later.`,
      );
    }
    if (ours !== m.name)
      throw new AppError(
        'validation-failed',
        `${label} is not a readybell store (migration ${m.version} is "${m.name}", expected "${ours}").`,
      );
  }
  const tickets = Number((db.prepare('SELECT COUNT(*) AS n FROM tickets').get() as { n: number }).n);
  return { tickets, schemaVersion: Number(applied.at(-1)!.version) };
}

/**
 * Copies the live store `storeFile` to `dest` as of the moment it starts: every write acknowledged
 * before then is in the copy. `dest` appears only once complete and checked (written beside it
 * under a temporary name, then renamed over it).
 */
export async function backupStore(storeFile: string, dest: string, opts: { pagesPerStep?: number } = {}): Promise<CopyFacts> {
  const started = performance.now();
  if (!existsSync(storeFile)) throw new AppError('not-found', `There is no embedded store at ${storeFile} (DATA_DIR); nothing to back up.`);
  const target = path.resolve(dest);
  if (SIDECARS.some((s) => path.resolve(storeFile + s) === target)) {
    throw new AppError(
      'validation-failed',
      `${target} is the live store itself; write the backup somewhere else (another disk or machine is best).`,
    );
  }
  const dir = path.dirname(target);
  if (!existsSync(dir) || !statSync(dir).isDirectory())
    throw new AppError('not-found', `The directory ${dir} does not exist; create it first.`);
  if (existsSync(target) && statSync(target).isDirectory())
    throw new AppError('validation-failed', `${target} is a directory; name the backup file, e.g. ${path.join(target, 'readybell.db')}.`);

  const partial = `${target}.${randomBytes(4).toString('hex')}.partial`;
  try {
    const source = new DatabaseSync(storeFile, { readOnly: true, timeout: 5000 });
    try {
      source.exec('BEGIN');
      // The first read starts the snapshot the copy is taken from.
      source.prepare('SELECT COUNT(*) FROM sqlite_master').get();
      await backup(source, partial, { rate: opts.pagesPerStep ?? PAGES_PER_STEP });
      source.exec('COMMIT');
    } catch (err) {
      throw sqliteProblem(`The store at ${storeFile}`, err);
    } finally {
      source.close();
    }
    const facts = sealCopy(partial, `The store at ${storeFile}`);
    renameSync(partial, target);
    fsyncPath(dir);
    return { file: target, bytes: statSync(target).size, ...facts, ms: Math.round(performance.now() - started) };
  } catch (err) {
    removeWithSidecars(partial);
    throw err;
  }
}

// A data directory mounted from its own file system has lost+found; that is still empty.
const IGNORED_ENTRIES = new Set(['lost+found']);

/**
 * Puts the backup `file` in place as `storeFile` inside the empty directory `dataDir`. Nothing is
 * left behind when the file is not a whole readybell store or the copy fails.
 */
export async function restoreStore(file: string, dataDir: string, storeFile: string): Promise<CopyFacts> {
  const started = performance.now();
  const source = path.resolve(file);
  if (!existsSync(source) || !statSync(source).isFile()) throw new AppError('not-found', `There is no backup file at ${source}.`);
  let created = false;
  if (existsSync(dataDir)) {
    if (!statSync(dataDir).isDirectory()) throw new AppError('validation-failed', `DATA_DIR ${dataDir} is not a directory.`);
    const entries = readdirSync(dataDir).filter((e) => !IGNORED_ENTRIES.has(e));
    if (entries.length > 0) {
      throw new AppError(
        'conflict',
        `DATA_DIR ${dataDir} is not empty (it holds ${entries.slice(0, 3).join(', ')}${entries.length > 3 ? ', …' : ''}); restore writes only into an empty directory, so that it never replaces a store. Stop readybell, move that directory aside, and run restore again.`,
      );
    }
  } else {
    mkdirSync(dataDir, { recursive: true });
    created = true;
  }

  const partial = path.join(dataDir, `.restoring-${randomBytes(4).toString('hex')}`);
  try {
    let from: DatabaseSync;
    try {
      from = new DatabaseSync(source, { readOnly: true });
    } catch (err) {
      throw sqliteProblem(source, err);
    }
    try {
      await backup(from, partial, { rate: PAGES_PER_STEP });
    } catch (err) {
      throw sqliteProblem(source, err);
    } finally {
      from.close();
    }
    const facts = sealCopy(partial, source);
    // link, not rename: fails rather than replace a store that appeared meanwhile.
    linkSync(partial, storeFile);
    rmSync(partial);
    fsyncPath(dataDir);
    return { file: storeFile, bytes: statSync(storeFile).size, ...facts, ms: Math.round(performance.now() - started) };
  } catch (err) {
    removeWithSidecars(partial);
    if (created) {
      try {
        rmdirSync(dataDir);
      } catch {
        // not empty: something else wrote there meanwhile, and it is not ours to remove
      }
    }
    throw err;
  }
}
