// Does a named statement survive from one transaction to the next? Directly on PostgreSQL and
// behind a pooler in session mode, a connection keeps its server session, so yes. Behind a pooler
// in transaction mode (PgBouncer's `pool_mode = transaction`) the server session goes back to the
// pool after each transaction and the next one may run on another: a statement prepared on the
// first is unknown there ("prepared statement … does not exist"), unless the pooler carries
// prepared statements itself (PgBouncer 1.21 and later with `max_prepared_statements` above 0).
//
// Asked once at start (PostgresDb.migrate) with two connections of its own: the first prepares a
// named statement that answers its server session's process id; the second opens a transaction
// and asks its own. The same id means the pooler gave the first connection's server session away
// (a pooler reuses the session released last); the first then runs its named statement again.
// Different ids mean each connection keeps its own session (direct, or session mode).
import pg from 'pg';
import { randomBytes } from 'node:crypto';

export type StatementNames = 'kept' | 'carried' | 'lost';

const STATEMENT_NOT_FOUND = '26000';
/** Directly or in session mode every attempt differs; in transaction mode one soon matches. */
const PROBE_ATTEMPTS = 5;

export async function probeStatementNames(url: string, applicationName: string): Promise<StatementNames> {
  const first = new pg.Client({ connectionString: url, application_name: applicationName });
  const second = new pg.Client({ connectionString: url, application_name: applicationName });
  // A connection that fails after connecting must not crash the process.
  first.on('error', () => {});
  second.on('error', () => {});
  try {
    await first.connect();
    await second.connect();
    // Another client of the pooler (this node's own workers, another node) may release a server
    // session between the two steps, and the second connection then gets that one: different ids
    // although names are lost. So the probe is asked several times, and names count as kept only
    // if no attempt ever got the first connection's session.
    for (let attempt = 0; attempt < PROBE_ATTEMPTS; attempt++) {
      const probe = { name: `rb_probe_${randomBytes(6).toString('hex')}`, text: 'SELECT pg_backend_pid() AS pid' };
      const before = (await first.query<{ pid: number }>(probe)).rows[0]!.pid;
      await second.query('BEGIN').catch((err: Error) => {
        // PgBouncer's statement mode refuses every transaction of more than one statement, and a
        // create or a ready is one: say so at start, with the mode that works.
        if (/statement pooling mode/.test(err.message)) {
          throw new Error(
            `PostgreSQL is reached through a pooler in statement mode (${err.message}): readybell needs transactions; set the pooler to transaction mode (PgBouncer: pool_mode = transaction) or session mode`,
          );
        }
        throw err;
      });
      const held = (await second.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      if (held === before) {
        try {
          await first.query(probe);
          return 'carried';
        } catch (err) {
          if ((err as { code?: string }).code === STATEMENT_NOT_FOUND) return 'lost';
          throw err;
        }
      }
      await second.query('ROLLBACK');
    }
    return 'kept';
  } finally {
    await second.query('ROLLBACK').catch(() => {});
    await Promise.all([first.end().catch(() => {}), second.end().catch(() => {})]);
  }
}
