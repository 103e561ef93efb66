// Issue 24's targets for a ready on PostgreSQL (decision 0054), each one line:
// "target: <what> <measured> (<goal>) met|missed". Reported, never enforced.
import type { Row } from '../scenarios/types.ts';

export const PGBENCH_SCENARIO = 'pgbench TPC-B';

type Line = { what: string; measured: string; goal: string; met: boolean | null };

const ms = (us: number): string => `${(us / 1000).toFixed(2)} ms`;
/** readybell's and PostgreSQL's CPU per request, in µs, when both were measured. */
const cost = (r: Row | undefined): number | null => (r?.cpuUs == null || r.dbCpuUs == null ? null : r.cpuUs + r.dbCpuUs);

export function readyTargets(rows: readonly Row[], connections: number): string[] {
  const find = (scenario: string, store?: string): Row | undefined =>
    rows.find((r) => r.scenario === scenario && (store === undefined || r.store === store));
  const lines: Line[] = [];
  const notMeasured = (what: string, goal: string, missing: string): Line => ({
    what,
    measured: `not measured (${missing})`,
    goal,
    met: null,
  });

  const ready1 = find('ready, 1 node');
  const ready2 = find('ready, 2 nodes');
  const keyed = find('create', 'postgres');
  {
    const what = 'PostgreSQL + node CPU per ready vs per keyed create';
    const goal = '≤ 2×';
    const r = cost(ready1);
    const c = cost(keyed);
    lines.push(
      r === null || c === null || c <= 0
        ? notMeasured(what, goal, 'needs the create scenario on PostgreSQL and the cluster')
        : { what, measured: `${(r / c).toFixed(2)}× (${ms(r)} vs ${ms(c)})`, goal, met: r <= 2 * c },
    );
  }
  {
    const what = 'per-ready CPU with 2 nodes vs 1 node';
    const goal = '≤ 1.2×';
    const one = cost(ready1);
    const two = cost(ready2);
    lines.push(
      one === null || two === null || one <= 0
        ? notMeasured(what, goal, 'needs the cluster scenario')
        : { what, measured: `${(two / one).toFixed(2)}× (${ms(two)} vs ${ms(one)})`, goal, met: two <= 1.2 * one },
    );
  }
  {
    const what = 'readies/s on one node vs the pgbench TPC-B tps of the same PostgreSQL';
    const goal = '≥ 100%';
    const pgbench = find(PGBENCH_SCENARIO);
    lines.push(
      ready1 === undefined || pgbench === undefined || pgbench.rps <= 0
        ? notMeasured(what, goal, 'needs the cluster scenario and pgbench')
        : {
            what,
            measured: `${((ready1.rps / pgbench.rps) * 100).toFixed(0)}% (${ready1.rps.toFixed(0)}/s vs ${pgbench.rps.toFixed(0)} tps)`,
            goal,
            met: ready1.rps >= pgbench.rps,
          },
    );
  }
  {
    const what = 'ready p99 at 50 connections, one node';
    const goal = '≤ 50 ms';
    lines.push(
      ready1 === undefined
        ? notMeasured(what, goal, 'needs the cluster scenario')
        : connections !== 50
          ? { what, measured: `${ready1.p99} ms at ${connections} connections, not comparable`, goal, met: null }
          : { what, measured: `${ready1.p99} ms`, goal, met: ready1.p99 <= 50 },
    );
  }
  for (const verb of ['GET', 'ready']) {
    const what = `${verb} cost after vs before ANALYZE of the tickets table`;
    const goal = 'within 20%';
    const before = cost(find(`${verb}, 1 node, before ANALYZE`));
    const after = cost(find(`${verb}, 1 node, after ANALYZE`));
    lines.push(
      before === null || after === null || before <= 0 || after <= 0
        ? notMeasured(what, goal, 'needs the cluster scenario')
        : {
            what,
            measured: `${(before / after).toFixed(2)}× (${ms(before)} before, ${ms(after)} after)`,
            goal,
            met: Math.max(before, after) <= 1.2 * Math.min(before, after),
          },
    );
  }
  return lines.map((l) => `target: ${l.what} ${l.measured} (${l.goal}) ${l.met === null ? 'not measured' : l.met ? 'met' : 'missed'}`);
}
