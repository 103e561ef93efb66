// What a node has seen of the PostgreSQL server behind DATABASE_URL, for /readyz (decision 0089):
// when statements began failing for want of a server and when they succeeded again, and which
// server answers (its start time and whether it is a standby). After a failover the address leads
// to another server: its start time differs, so the node can say so without being told.
import type { StoreHistory } from '../../core/db.ts';

/** Errors that mean "no usable server", not "this statement was wrong": connection, shutdown, standby. */
const SERVER_LOST: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection lost',
  EPIPE: 'connection lost',
  ETIMEDOUT: 'connection timed out',
  '57P01': 'server shutting down',
  '57P02': 'server crashed',
  '57P03': 'server starting or recovering',
  '08000': 'connection lost',
  '08001': 'connection refused',
  '08003': 'connection lost',
  '08006': 'connection lost',
  '25006': 'read-only server (a standby)',
};

/** Why `err` means the server is gone, or null when it is a statement's own failure. */
export function serverLost(err: unknown): string | null {
  const e = err as { code?: unknown; message?: unknown } | null;
  if (typeof e?.code === 'string' && SERVER_LOST[e.code] !== undefined) return SERVER_LOST[e.code]!;
  // node-postgres gives these no code.
  if (typeof e?.message === 'string' && /^Connection terminated|^connect |timeout expired/.test(e.message)) return 'connection lost';
  return null;
}

const KEPT = 5;

export class ServerWatch {
  private readonly outages: StoreHistory['outages'] = [];
  private server: StoreHistory['server'] = null;
  private readonly now: () => number;

  constructor(now: () => number = Date.now) {
    this.now = now;
  }

  /** A statement failed: opens an outage when the server is what failed. */
  failed(err: unknown): void {
    const why = serverLost(err);
    if (why === null) return;
    const open = this.outages.at(-1);
    if (open !== undefined && open.to === null) return;
    this.outages.push({ from: this.now(), to: null, error: why });
    if (this.outages.length > KEPT) this.outages.shift();
  }

  /** A statement succeeded: closes the open outage. Answers whether there was one (the server may have changed). */
  succeeded(): boolean {
    const open = this.outages.at(-1);
    if (open === undefined || open.to !== null) return false;
    open.to = this.now();
    return true;
  }

  /** The server that answered: a different start time than before means another server (a failover) or a restart. */
  saw(startedAt: number, standby: boolean): void {
    const role = standby ? 'standby' : 'primary';
    if (this.server === null) this.server = { startedAt, role, changedAt: null };
    else if (this.server.startedAt !== startedAt || this.server.role !== role) this.server = { startedAt, role, changedAt: this.now() };
  }

  history(): StoreHistory {
    return { outages: this.outages.map((o) => ({ ...o })), server: this.server === null ? null : { ...this.server } };
  }
}
