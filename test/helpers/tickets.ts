// Small helpers shared by the ticket API tests: counting stored rows (to prove that nothing
// changed), promises a test resolves by hand, and ringers that wait for the test, count, or stand
// in for the app's own.
import { spawn } from 'node:child_process';
import { owned } from './child-processes.ts';
import type { TestApp } from './app.ts';
import type { Ringer, RingOutcome, RingRequest, RingTarget } from '../../src/core/ring.ts';
import { NOBODY_REACHED } from '../../src/channels/ringer.ts';

export type Deferred<T> = { promise: Promise<T>; resolve: (v: T) => void; reject: (e: unknown) => void };

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Rows of `table` for one branch: the store's own account of what exists, not the API's. */
export async function countRows(t: TestApp, table: 'tickets' | 'events' | 'rings' | 'idempotency_keys', branchId: string): Promise<number> {
  const rows = await t.app.services.db.query<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table} WHERE branch_id = $1`, [branchId]);
  return Number(rows[0]?.n ?? 0);
}

/** Everything a request could change for a branch, to compare before and after. */
export async function snapshot(t: TestApp, branchId: string): Promise<Record<string, unknown>> {
  const db = t.app.services.db;
  return {
    tickets: await db.query(
      'SELECT id, status, number, rings, customer_phone, metadata, updated_at FROM tickets WHERE branch_id = $1 ORDER BY id',
      [branchId],
    ),
    events: await countRows(t, 'events', branchId),
    rings: await countRows(t, 'rings', branchId),
    counters: await db.query('SELECT mode, queue, day, last_number FROM queue_counters WHERE branch_id = $1 ORDER BY mode, queue, day', [
      branchId,
    ]),
  };
}

/**
 * A ringer that holds every ring until the test opens the gate: makes "a request still in
 * flight" deterministic without sleeping. `entered` resolves when the first ring starts.
 */
export class GatedRinger implements Ringer {
  readonly gate = deferred();
  readonly entered = deferred();
  calls = 0;
  async ring(_req: RingRequest): Promise<RingOutcome> {
    this.calls++;
    this.entered.resolve();
    await this.gate.promise;
    return NOBODY_REACHED;
  }
}

/**
 * The app's own ringer, for which a test may stand in another for a while: handed to startTestApp
 * (`ringer: ringers.around`), so that the test changes this object, never the app's services.
 */
export class RingerStandIn implements Ringer {
  private built: Ringer | null = null;
  private standIn: Ringer | null = null;

  /** For createApp's `ringer` option: keeps the app's ringer and rings through this. */
  readonly around = (built: Ringer): Ringer => {
    this.built = built;
    return this;
  };

  /** Rings (and look-aheads) go to `ringer` until `restore`. */
  use(ringer: Ringer): void {
    this.standIn = ringer;
  }

  restore(): void {
    this.standIn = null;
  }

  private current(): Ringer {
    const ringer = this.standIn ?? this.built;
    if (ringer === null) throw new Error('RingerStandIn: not handed to an app');
    return ringer;
  }

  ring(request: RingRequest, deadlineMs: number): Promise<RingOutcome> {
    return this.current().ring(request, deadlineMs);
  }

  /** A ringer without a look-ahead counts as one whose channels all have someone to try. */
  async lookAhead(target: RingTarget): Promise<(request: RingRequest) => RingOutcome | null> {
    const ringer = this.current();
    return ringer.lookAhead === undefined ? () => null : ringer.lookAhead(target);
  }
}

/** Counts ring attempts and answers that nobody was reached. */
export class CountingRinger implements Ringer {
  calls = 0;
  async ring(): Promise<RingOutcome> {
    this.calls++;
    return NOBODY_REACHED;
  }
}

export async function createTicket(t: TestApp, opts: { key?: string; body?: Record<string, unknown>; idem?: string } = {}): Promise<any> {
  const res = await t.request('POST', '/v1/tickets', {
    key: opts.key,
    body: opts.body ?? {},
    headers: opts.idem ? { 'idempotency-key': opts.idem } : undefined,
  });
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${res.text}`);
  return res.body;
}

/** Starts test/helpers/second-node.ts on the same store as `t`; resolves with its URL. */
export async function startSecondNode(t: TestApp): Promise<{ url: string; stop(): Promise<void> }> {
  const { databaseUrl, dataDir, redisUrl, redisPrefix } = t.app.services.config;
  const env: Record<string, string> = databaseUrl !== null ? { DATABASE_URL: databaseUrl } : { DATA_DIR: dataDir };
  if (redisUrl !== null) Object.assign(env, { REDIS_URL: redisUrl, REDIS_KEY_PREFIX: redisPrefix });
  const script = new URL('./second-node.ts', import.meta.url).pathname;
  const child = owned(spawn(process.execPath, [script], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'inherit'] }));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /listening (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`second node exited with ${code} before listening`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      child.stdin.end();
      await exited;
    },
  };
}
