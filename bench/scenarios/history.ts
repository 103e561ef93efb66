// What a list costs as history grows: every filter of GET /v1/tickets on a store whose branch has
// 10,000 tickets and on one whose branch has 1,000,000 (a year of closed tickets behind the same
// recent days), printing each filter's medians and the 1M/10k ratio. The tickets are written
// straight into the stores (test/helpers/ticket-history.ts): creating a million through the API
// would take hours.
//
// The small store gets a readybell of its own, and the two servers are asked in turn, request by
// request, so that both see the same load from whatever else runs on the machine. Measured one
// after the other, minutes apart, the same plan read up to 1.5 times the CPU on these shared
// 2-core machines. (Two branches of one store, asked in turn, would hide a plan that reads the
// whole table: on PostgreSQL, created_after then cost 250 ms on both.)
import { loadConfig } from '../../src/config.ts';
import { openDb } from '../../src/store/open-db.ts';
import { insertQueue } from '../../src/store/tenancy.ts';
import { createAccount, createApiKey, createBranch } from '../../src/actions/provision.ts';
import { fillHistory } from '../../test/helpers/ticket-history.ts';
import { HarnessError } from '../lib/proc.ts';
import type { Readybell } from '../lib/readybell.ts';
import { compareAtScale, nodePidOf, shortCount } from '../lib/scale-compare.ts';
import type { ReadybellContext, Row, Scenario } from './types.ts';

const SMALL = 10_000;
const LARGE = Number(process.env['BENCH_HISTORY_TICKETS'] || 1_000_000);
/** A million tickets a year, so SMALL is the last few days and LARGE (by default) the year. */
const EVERY_MS = Math.round((365 * 24 * 3600_000) / 1_000_000);
const OPEN = 20;

type Filter = { label: string; query: string };

function filters(newestAt: number, ids: { mid: string; openPageEnd: string }): Filter[] {
  const iso = (ms: number) => new Date(ms).toISOString();
  const hour = 3600_000;
  const day = 24 * hour;
  const f = (query: string, label = query): Filter => ({ label, query });
  return [
    f('', '(no filter)'),
    ...['created', 'ready', 'collected', 'cancelled', 'expired'].map((s) => f(`status=${s}`)),
    f('status=created,ready&limit=100'),
    f('status=collected,cancelled,expired&limit=12'),
    f('status=created,ready,collected,cancelled,expired'),
    f('status=cancelled,expired&limit=100'),
    f('queue=B'),
    f('queue=B&status=ready'),
    f('queue=A&status=created,ready&limit=100'),
    f('queue=B&status=expired'),
    f('external_ref=order-5000'),
    f('external_ref=order-5000&status=collected,cancelled'),
    f(`created_after=${iso(newestAt - hour / 2)}&limit=100`, 'created_after=(30 min ago)&limit=100'),
    f(
      `created_after=${iso(newestAt - 2 * day)}&created_before=${iso(newestAt - day)}`,
      'created_after=(2 days ago)&created_before=(1 day ago)',
    ),
    f(`created_before=${iso(newestAt - 3 * day)}`, 'created_before=(3 days ago)'),
    f(`starting_after=${ids.mid}`, 'starting_after=(ticket 5,000)'),
    f(`status=created,ready&starting_after=${ids.openPageEnd}`, 'status=created,ready&starting_after=(ticket 9)'),
    f(`status=collected&starting_after=${ids.mid}`, 'status=collected&starting_after=(ticket 5,000)'),
    f(`queue=B&starting_after=${ids.mid}`, 'queue=B&starting_after=(ticket 5,000)'),
  ];
}

/** A branch of `size` tickets of history in `server`'s store, and the filters to ask it. */
async function historyIn(server: Readybell, size: number, now: number): Promise<{ key: string; filters: Filter[]; nodePid: number }> {
  const db = openDb(loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: server.dataDir, ...server.store.env }));
  try {
    const tenant = await db.write(async (tx) => {
      const account = await createAccount(tx, { name: 'bench history', plan: 'pro' }, now);
      const branch = await createBranch(tx, { accountId: account.id, name: 'bench history' }, now);
      await insertQueue(tx, { branchId: branch.id, name: 'B', createdAt: now });
      return { branchId: branch.id, key: (await createApiKey(tx, { branchId: branch.id, mode: 'test' }, now)).key };
    });
    await fillHistory(db, { branchId: tenant.branchId, mode: 'test', newestAt: now, everyMs: EVERY_MS, open: OPEN, tag: 0 }, 0, size);
    const idOf = async (s: number): Promise<string> => {
      const res = await fetch(`${server.url}/v1/tickets?external_ref=order-${s}`, { headers: { authorization: `Bearer ${tenant.key}` } });
      const id = ((await res.json()) as { data: Array<{ id: string }> }).data[0]?.id;
      if (id === undefined) throw new HarnessError(`ticket order-${s} of the history is not listed`);
      return id;
    };
    return { key: tenant.key, filters: filters(now, { mid: await idOf(5_000), openPageEnd: await idOf(9) }), nodePid: nodePidOf(server) };
  } finally {
    await db.close();
  }
}

export const history: Scenario = {
  name: 'history',
  kind: 'readybell',
  async run(ctx: ReadybellContext): Promise<Row[]> {
    const [S, L] = [shortCount(SMALL), shortCount(LARGE)];
    const samples = await compareAtScale(ctx, {
      scenario: 'history',
      tmpPrefix: 'rb-bench-small-',
      small: SMALL,
      large: LARGE,
      largeVar: 'BENCH_HISTORY_TICKETS',
      build: historyIn,
      built: (_, size, seconds) => `a store of ${size.toLocaleString('en')} tickets written in ${seconds.toFixed(1)} s`,
      items: (small) => small.filters,
      pathOf: (_, b, i) => {
        const q = b.filters[i]!.query;
        return `/v1/tickets${q === '' ? '' : `?${q}`}`;
      },
      noun: 'filter',
      column: 'filter',
      rowsColumn: true,
      mismatch: { unit: 'tickets', why: 'the filters must see the same recent days' },
      intro: () =>
        `history (${ctx.server.store.label}): GET /v1/tickets on a store of ${S} tickets and one of ${L}, sequential requests taking turns between them.`,
      goal: "every filter's CPU",
    });
    const worst = samples.map((p) => p[1]).reduce((w, x) => (x.cpuUs > w.cpuUs ? x : w));
    return [
      {
        scenario: `history ${L}, costliest filter`,
        store: ctx.server.store.label,
        rps: 1000 / worst.medianMs,
        p50: Number(worst.medianMs.toFixed(2)),
        p99: Number(worst.medianMs.toFixed(2)),
        errors: 0,
        cpuUs: worst.cpuUs,
        note: 'sequential requests; see the history table below',
      },
    ];
  },
};
