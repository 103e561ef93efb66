// The same PostgreSQL's own yardstick: pgbench's TPC-B transaction (three UPDATEs, a SELECT and
// an INSERT, each a round trip, and a COMMIT) on a throw-away database, in the same run as
// readybell's. A ready is a transaction of about that size (issue 24, decision 0054), so the
// rate pgbench gets from the server bounds what a ready can hope for on these cores.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import pg from 'pg';

const run = promisify(execFile);

export type PgbenchResult = { tps: number; latencyMs: number; clients: number; seconds: number };

/** Null (with the reason in `skipped`) when pgbench is not installed. */
export async function pgbenchTpcb(adminUrl: string, seconds: number): Promise<{ result: PgbenchResult | null; skipped?: string }> {
  try {
    await run('pgbench', ['--version']);
  } catch {
    return { result: null, skipped: 'pgbench not found (Debian: apt-get install postgresql-contrib, or postgresql-client)' };
  }
  const name = `rb_pgbench_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    await run('pgbench', ['-i', '-q', url.toString()]);
    const clients = 8;
    const { stdout } = await run('pgbench', ['-c', String(clients), '-j', '2', '-T', String(seconds), url.toString()]);
    const tps = Number(/tps = ([\d.]+)/.exec(stdout)?.[1] ?? NaN);
    const latencyMs = Number(/latency average = ([\d.]+) ms/.exec(stdout)?.[1] ?? NaN);
    if (!Number.isFinite(tps)) throw new Error(`pgbench printed no tps:\n${stdout}`);
    return { result: { tps, latencyMs, clients, seconds } };
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
    await admin.end();
  }
}
