// A PostgreSQL primary and a hot standby of the test's own (streaming replication, synchronous
// when asked), built from the Debian PostgreSQL binaries in a temporary directory on free loopback
// ports: what a failover test needs, never the shared server. As root (CI containers) the servers
// and their tools run as the `postgres` user, since PostgreSQL refuses to run as root. Every
// server is a child of this process (owned: killed when it exits) and `stop()` removes the
// directory, so nothing outlives the test even when it fails half-way.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync, appendFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { owned } from './child-processes.ts';
import { freePort } from './free-port.ts';

const run = promisify(execFile);

/** The newest installed server's bin directory (Debian: /usr/lib/postgresql/<major>/bin), or null. */
function binDir(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const majors = readdirSync(root)
    .filter((d) => existsSync(path.join(root, d, 'bin', 'initdb')) && existsSync(path.join(root, d, 'bin', 'pg_basebackup')))
    .sort((a, b) => Number(b) - Number(a));
  return majors[0] === undefined ? null : path.join(root, majors[0], 'bin');
}

const BIN = binDir();

/** As root, the uid and gid of `postgres`, which every server process and tool runs as. */
function runAs(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  try {
    const line = readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('postgres:'));
    const [, , uid, gid] = line?.split(':') ?? [];
    return uid === undefined || gid === undefined ? null : { uid: Number(uid), gid: Number(gid) };
  } catch {
    return null;
  }
}

const AS = runAs();

/** Why a replication test cannot run here, or null. */
export const replicationMissing: string | null =
  BIN === null
    ? 'PostgreSQL server binaries (initdb, pg_basebackup) not installed under /usr/lib/postgresql/*/bin'
    : process.getuid?.() === 0 && AS === null
      ? 'running as root and there is no postgres user to run the servers as'
      : null;

export type PgServer = { name: string; port: number; url(db?: string): string; child: ChildProcess; log: () => string };

export type Replication = {
  primary: PgServer;
  standby: PgServer;
  /** Makes the standby synchronous: a commit is acknowledged once the standby has flushed it. */
  synchronous(): Promise<void>;
  /** Kills the primary as a crash would (SIGQUIT: immediate shutdown, no checkpoint). */
  crashPrimary(): Promise<void>;
  /** Promotes the standby to a primary and waits until it accepts writes. */
  promote(): Promise<void>;
  stop(): Promise<void>;
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function tool(name: string, args: string[]): Promise<void> {
  await run(path.join(BIN!, name), args, { ...(AS ?? {}), env: { ...process.env, LC_ALL: 'C' } });
}

function startServer(name: string, dir: string, port: number, socketDir: string): PgServer {
  const logFile = path.join(socketDir, `${name}.log`);
  writeFileSync(logFile, '');
  if (AS !== null) chownSync(logFile, AS.uid, AS.gid);
  const child = owned(
    spawn(path.join(BIN!, 'postgres'), ['-D', dir, '-p', String(port), '-k', socketDir, '-c', 'listen_addresses=127.0.0.1'], {
      ...(AS ?? {}),
      stdio: ['ignore', 'ignore', 'pipe'],
    }),
  );
  child.stderr!.on('data', (c: Buffer) => appendFileSync(logFile, c));
  child.on('error', () => {});
  return {
    name,
    port,
    child,
    url: (db = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${db}`,
    log: () => readFileSync(logFile, 'utf8').slice(-4000),
  };
}

async function query(server: PgServer, sql: string): Promise<any[]> {
  const c = new pg.Client({ connectionString: server.url() });
  c.on('error', () => {});
  try {
    await c.connect();
    return (await c.query(sql)).rows;
  } finally {
    await c.end().catch(() => {});
  }
}

async function waitUntil(what: string, server: PgServer, check: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    if (server.child.exitCode !== null || server.child.signalCode !== null)
      throw new Error(`${server.name} exited before ${what}: ${server.log()}`);
    if (await check().catch(() => false)) return;
    if (Date.now() > until) throw new Error(`${server.name}: no ${what} within ${ms} ms: ${server.log()}`);
    await sleep(50);
  }
}

async function stopServer(server: PgServer | undefined): Promise<void> {
  if (server === undefined) return;
  const { child } = server;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGQUIT');
  const killed = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(killed);
}

/** The standby's `application_name`, named in the primary's synchronous_standby_names. */
const STANDBY_NAME = 'standby1';

export async function startReplication(): Promise<Replication> {
  if (replicationMissing !== null) throw new Error(replicationMissing);
  const root = mkdtempSync(path.join(tmpdir(), 'readybell-replication-'));
  if (AS !== null) chownSync(root, AS.uid, AS.gid);
  const primaryDir = path.join(root, 'primary');
  const standbyDir = path.join(root, 'standby');
  let primary: PgServer | undefined;
  let standby: PgServer | undefined;
  const stop = async (): Promise<void> => {
    await Promise.all([stopServer(primary), stopServer(standby)]);
    rmSync(root, { recursive: true, force: true });
  };
  try {
    await tool('initdb', ['-D', primaryDir, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8']);
    appendFileSync(
      path.join(primaryDir, 'postgresql.conf'),
      // Small and quick: the test writes little, and nothing here outlives it.
      ['wal_level = replica', 'max_wal_senders = 4', 'fsync = off', 'shared_buffers = 16MB', 'max_connections = 60', ''].join('\n'),
    );
    const [primaryPort, standbyPort] = [await freePort(), await freePort()];
    primary = startServer('primary', primaryDir, primaryPort, root);
    await waitUntil('connections', primary, async () => (await query(primary!, 'SELECT 1')).length === 1);
    await tool('pg_basebackup', [
      '-D',
      standbyDir,
      '-d',
      `host=127.0.0.1 port=${primaryPort} user=postgres application_name=${STANDBY_NAME}`,
      '-X',
      'stream',
      '-R',
      '--no-sync',
    ]);
    standby = startServer('standby', standbyDir, standbyPort, root);
    const replicating = async () =>
      (await query(primary!, `SELECT 1 FROM pg_stat_replication WHERE application_name = '${STANDBY_NAME}' AND state = 'streaming'`))
        .length === 1;
    await waitUntil('streaming standby', standby, replicating);
    const [p, s] = [primary, standby];
    return {
      primary: p,
      standby: s,
      async synchronous() {
        await query(p, `ALTER SYSTEM SET synchronous_standby_names = '${STANDBY_NAME}'`);
        await query(p, 'SELECT pg_reload_conf()');
        await waitUntil(
          'synchronous standby',
          p,
          async () =>
            (await query(p, `SELECT sync_state FROM pg_stat_replication WHERE application_name = '${STANDBY_NAME}'`))[0]?.sync_state ===
            'sync',
        );
      },
      async crashPrimary() {
        await stopServer(p);
      },
      async promote() {
        await query(s, 'SELECT pg_promote(true, 30)');
        await waitUntil('writes after promotion', s, async () => (await query(s, 'SELECT pg_is_in_recovery() AS r'))[0]?.r === false);
      },
      stop,
    };
  } catch (err) {
    const logs = [primary, standby].map((server) => (server === undefined ? '' : `${server.name}: ${server.log()}`)).join('\n');
    await stop();
    throw new Error(`${(err as Error).message}\n${logs}`);
  }
}
