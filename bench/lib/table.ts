// Plain-text output that reads the same in a terminal and in a CI log.
import type { Row } from '../scenarios/types.ts';

export function formatTable(rows: Row[], baselineRps: number | null): string {
  const baselineCpu = rows.find((r) => r.scenario === 'baseline create')?.cpuUs ?? null;
  const header = [
    'scenario',
    'store',
    'req/s (mean)',
    'p50 ms',
    'p99 ms',
    'errors',
    'vs baseline',
    'CPU µs/req',
    'CPU vs baseline',
    'note',
  ];
  const body = rows.map((r) => [
    r.scenario,
    r.store,
    r.rps.toFixed(0),
    String(r.p50),
    Number.isFinite(r.p99) ? String(r.p99) : '—',
    String(r.errors),
    baselineRps ? `${((r.rps / baselineRps) * 100).toFixed(0)}%` : '—',
    r.cpuUs == null ? '—' : r.cpuUs.toFixed(0),
    // baseline CPU / this CPU: the req/s ratio this route would reach if the server had the cores to itself
    r.cpuUs == null || baselineCpu === null ? '—' : `${((baselineCpu / r.cpuUs) * 100).toFixed(0)}%`,
    r.note ?? '',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] ?? '').length)));
  const numeric = new Set([2, 3, 4, 5, 6, 7, 8]);
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => (numeric.has(i) ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

export type TargetCheck = { label: string; value: string; met: boolean | null };

/** The targets. Reported, never enforced: a slow run is information, not a broken build. */
export function checkTargets(rows: Row[], baselineRps: number | null, connections: number): TargetCheck[] {
  const find = (scenario: string, store: string): Row | undefined => rows.find((r) => r.scenario === scenario && r.store === store);
  const checks: TargetCheck[] = [];
  const create = find('create', 'embedded');
  checks.push(
    create && baselineRps
      ? {
          label: 'create ≥ 50% of baseline req/s (embedded store)',
          value: `${((create.rps / baselineRps) * 100).toFixed(0)}% (${create.rps.toFixed(0)} / ${baselineRps.toFixed(0)})`,
          met: create.rps >= baselineRps * 0.5,
        }
      : { label: 'create ≥ 50% of baseline req/s (embedded store)', value: 'not measured', met: null },
  );
  // Issue 14's goals for the keyed create, a POS that follows the integrator guide, against the
  // unkeyed one measured in the same run.
  const keyedPg = find('create', 'postgres');
  const unkeyedPg = find('create (no key)', 'postgres');
  if (keyedPg && unkeyedPg && unkeyedPg.rps > 0) {
    checks.push({
      label: 'keyed create ≥ 80% of unkeyed req/s (postgres)',
      value: `${((keyedPg.rps / unkeyedPg.rps) * 100).toFixed(0)}% (${keyedPg.rps.toFixed(0)} / ${unkeyedPg.rps.toFixed(0)})`,
      met: keyedPg.rps >= unkeyedPg.rps * 0.8,
    });
  }
  const unkeyedEmbedded = find('create (no key)', 'embedded');
  if (create?.cpuUs && unkeyedEmbedded?.cpuUs) {
    const ratio = create.cpuUs / unkeyedEmbedded.cpuUs;
    checks.push({
      label: 'keyed create ≤ 1.2× the server CPU of unkeyed (embedded store)',
      value: `${ratio.toFixed(2)}× (${create.cpuUs.toFixed(0)} / ${unkeyedEmbedded.cpuUs.toFixed(0)} µs)`,
      met: ratio <= 1.2,
    });
  }
  const atFifty = connections === 50 ? '' : ` — measured at ${connections} connections, so not comparable`;
  for (const r of rows.filter((x) => x.scenario === 'ready')) {
    checks.push({
      label: `ready p99 < 20 ms at 50 connections (${r.store})`,
      value: `${r.p99} ms${atFifty}`,
      met: connections === 50 ? r.p99 < 20 : null,
    });
  }
  if (!rows.some((r) => r.scenario === 'ready')) {
    checks.push({ label: 'ready p99 < 20 ms at 50 connections', value: 'not measured', met: null });
  }
  return checks;
}

export function formatTargets(checks: TargetCheck[]): string {
  return checks.map((c) => `  ${c.met === null ? '[ -- ]' : c.met ? '[ met ]' : '[MISSED]'} ${c.label}: ${c.value}`).join('\n');
}
