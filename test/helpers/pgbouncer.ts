// A PgBouncer of the test's own, in transaction mode, between readybell and the shared PostgreSQL:
// what a hosted PostgreSQL usually puts in front of its primary. Any database name is passed on
// to 127.0.0.1:5432 (the tests create theirs through TEST_DATABASE_URL directly), with few server
// connections so that clients really share them.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { owned } from './child-processes.ts';
import { freePort } from './free-port.ts';

/** The binary: on PATH, or where Debian's package `pgbouncer` puts it (/usr/sbin, off a non-root PATH). */
const BINARY = ['pgbouncer', '/usr/sbin/pgbouncer'].find((b) => spawnSync(b, ['--version']).status === 0) ?? null;
/** Why a pooler test cannot run here, or null. */
export const pgbouncerMissing: string | null = BINARY === null ? 'pgbouncer not installed' : null;

export type Pooler = { port: number; via(url: string): string; stop(): Promise<void> };

export async function startPgbouncer(
  opts: { poolMode?: 'transaction' | 'session' | 'statement'; poolSize?: number } = {},
): Promise<Pooler> {
  const dir = mkdtempSync(path.join(tmpdir(), 'readybell-pgbouncer-'));
  const port = await freePort();
  const ini = path.join(dir, 'pgbouncer.ini');
  writeFileSync(path.join(dir, 'users.txt'), '"postgres" ""\n');
  writeFileSync(
    ini,
    [
      '[databases]',
      '* = host=127.0.0.1 port=5432',
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${path.join(dir, 'users.txt')}`,
      `pool_mode = ${opts.poolMode ?? 'transaction'}`,
      `default_pool_size = ${opts.poolSize ?? 4}`,
      'max_client_conn = 200',
      // node-postgres sends it at connect; PgBouncer passes on only the parameters it tracks.
      'ignore_startup_parameters = extra_float_digits',
      '',
    ].join('\n'),
  );
  // PgBouncer refuses to run as root (CI containers): it then drops to `nobody`, who must read the files.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    chmodSync(dir, 0o755);
    for (const f of ['pgbouncer.ini', 'users.txt']) chmodSync(path.join(dir, f), 0o644);
  }
  const child: ChildProcess = owned(
    spawn(BINARY ?? 'pgbouncer', [...(asRoot ? ['-u', 'nobody'] : []), ini], { stdio: ['ignore', 'ignore', 'pipe'] }),
  );
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  // A binary that cannot be started emits 'error' and never 'exit'.
  let failed: Error | null = null;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', (err) => {
      failed = err;
      resolve();
    });
  });
  const stop = async (): Promise<void> => {
    if (failed === null && child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  const via = (url: string): string => {
    const u = new URL(url);
    u.host = `127.0.0.1:${port}`;
    return u.toString();
  };
  try {
    await waitAccepting(via('postgres://postgres@127.0.0.1/postgres'), child, () => (failed ? String(failed) : stderr));
  } catch (err) {
    await stop();
    throw err;
  }
  return { port, via, stop };
}

async function waitAccepting(url: string, child: ChildProcess, stderr: () => string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null || child.pid === undefined) throw new Error(`pgbouncer exited with ${child.exitCode}: ${stderr()}`);
    const c = new pg.Client({ connectionString: url });
    c.on('error', () => {});
    try {
      await c.connect();
      await c.query('SELECT 1');
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    } finally {
      await c.end().catch(() => {});
    }
  }
  throw new Error(`pgbouncer did not accept connections within 5 s: ${stderr()}`);
}
