// `readybell insights rebuild --branch BRANCH_ID [--mode live|test]`: recomputes a branch's insight
// rollups from its tickets (decision 0025) on the configured store, while the service runs.
import type { Db } from '../core/db.ts';
import type { Mode } from '../core/tenancy.ts';
import { AppError } from '../domain/errors.ts';
import { rebuildInsights, REBUILD_MARGIN_MS } from '../actions/rebuild-insights.ts';

export async function runInsightsRebuild(
  db: Db,
  values: { branch?: string; mode?: string },
  now: number,
): Promise<{ output: unknown; human: string }> {
  if (typeof values.branch !== 'string' || values.branch === '') throw new AppError('validation-failed', '--branch is required.');
  if (values.mode !== undefined && values.mode !== 'live' && values.mode !== 'test')
    throw new AppError('validation-failed', '--mode is live or test.');
  const modes: Mode[] = values.mode === undefined ? ['live', 'test'] : [values.mode];
  const started = performance.now();
  const reports = await rebuildInsights(db, values.branch, now, modes);
  const seconds = (performance.now() - started) / 1000;
  const through = reports[0]!.through;
  const output = {
    branch: values.branch,
    modes: reports.map((r) => ({ mode: r.mode, tickets: r.tickets, rings: r.rings, snoozes: r.snoozes, rows: r.rows })),
    rebuilt_before: { date: through.day, hour: through.hour },
    seconds: Number(seconds.toFixed(2)),
  };
  const lines = reports.map((r) => `  ${r.mode}: ${r.tickets} tickets, ${r.rings} rings, ${r.snoozes} snoozes in ${r.rows} hourly rows`);
  const human = [
    `Rebuilt the insights of ${values.branch} in ${seconds.toFixed(1)} s, every hour before ${through.day} ${String(through.hour).padStart(2, '0')}:00 (branch time);`,
    `the hours since (the last ${REBUILD_MARGIN_MS / 60_000} minutes and more) keep counting as tickets change.`,
    ...lines,
  ].join('\n');
  return { output, human };
}
