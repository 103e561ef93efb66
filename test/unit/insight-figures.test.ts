// Figures from rollup rows: buckets, the quantiles read from them, and the rates; and the
// migration's columns being the ones the figures add up.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import {
  addInto,
  bucketOf,
  BUCKET_BOUNDS_S,
  BUCKETS,
  emptySums,
  figuresOf,
  MAX_COLUMNS,
  quantileMs,
  SUM_COLUMNS,
} from '../../src/domain/insight-figures.ts';
import { deltasOf, type InsightChange } from '../../src/store/insights-rollups.ts';

/** The sums of these changes, as the rows would hold them. */
function sumsOf(changes: InsightChange[]) {
  const s = emptySums();
  for (const c of changes) {
    const d = deltasOf(c);
    for (const [col, v] of d.add) s[col]! += v;
    for (const [col, v] of d.max) s[col] = Math.max(s[col]!, v);
  }
  return s;
}

test('a duration falls in the bucket whose bounds hold it', () => {
  assert.equal(bucketOf(0), 0);
  assert.equal(bucketOf(14_999), 0);
  assert.equal(bucketOf(15_000), 1);
  assert.equal(bucketOf(8 * 60_000), BUCKET_BOUNDS_S.indexOf(600));
  assert.equal(bucketOf(3 * 3600_000), BUCKETS - 1);
  assert.equal(bucketOf(30 * 3600_000), BUCKETS - 1);
});

test('quantiles: exact for one sample and for the longest, within the bucket otherwise', () => {
  const counts = (ms: number[]) => {
    const c = Array<number>(BUCKETS).fill(0);
    for (const m of ms) c[bucketOf(m)]! += 1;
    return c;
  };
  assert.equal(quantileMs(counts([]), 0, 0.5), null);
  assert.equal(quantileMs(counts([7 * 60_000]), 7 * 60_000, 0.5), 7 * 60_000);
  const minutes = [3, 4, 5, 6, 7, 8, 9, 10, 12, 40].map((m) => m * 60_000);
  const median = quantileMs(counts(minutes), 40 * 60_000, 0.5)!;
  assert.ok(median >= 7 * 60_000 && median < 8 * 60_000, `median ${median / 1000} s in the bucket of the 5th sample, 7 min (7–8 min)`);
  const p90 = quantileMs(counts(minutes), 40 * 60_000, 0.9)!;
  assert.ok(p90 >= 12 * 60_000 && p90 < 15 * 60_000, `p90 ${p90 / 1000} s in the 12–15 min bucket`);
  assert.equal(quantileMs(counts(minutes), 40 * 60_000, 1), 40 * 60_000);
  // A bucket's upper bound is never above the longest seen.
  assert.ok(quantileMs(counts([61_000, 62_000]), 62_000, 0.5)! <= 62_000);
});

test('figures: counts add up, rates are over the tickets made ready and the rings', () => {
  const f = figuresOf(
    sumsOf([
      { kind: 'created' },
      { kind: 'created' },
      { kind: 'created' },
      { kind: 'ready', preparationMs: 300_000 },
      { kind: 'ready', preparationMs: 600_000 },
      { kind: 'rung', channel: 'push', calledOut: true },
      { kind: 'rung', channel: 'none', calledOut: false },
      { kind: 'rung', channel: 'sms', calledOut: true },
      { kind: 'rung', channel: 'carrier pigeon', calledOut: false },
      { kind: 'acknowledged' },
      { kind: 'snoozed' },
      { kind: 'collected', pickupMs: 90_000 },
      { kind: 'collected', pickupMs: null },
      { kind: 'cancelled' },
    ]),
    1,
  );
  assert.deepEqual([f.created, f.ready, f.collected, f.cancelled, f.expired, f.open], [3, 2, 2, 1, 0, 1]);
  assert.deepEqual(f.reached, { push: 1, wallet: 0, page: 0, sms: 1, whatsapp: 0, none: 1, unknown: 1 });
  assert.deepEqual([f.rings, f.rings_per_ticket, f.called_out, f.called_out_share], [4, 2, 2, 0.5]);
  assert.deepEqual([f.acknowledged, f.acknowledgement_rate, f.snoozed], [1, 0.5, 1]);
  // The median (5 min, the first of two) is the middle of its bucket, 5–6 min; the p90 is the longest.
  assert.deepEqual(f.preparation, { count: 2, median_seconds: 330, p90_seconds: 600, longest_seconds: 600, mean_seconds: 450 });
  assert.deepEqual([f.pickup.count, f.pickup.longest_seconds], [1, 90], 'a ticket collected before it was ready has no pickup time');
  const none = figuresOf(emptySums(), 0);
  assert.deepEqual(
    [none.rings_per_ticket, none.acknowledgement_rate, none.reached_share.push, none.preparation.median_seconds],
    [null, null, null, null],
  );
});

test('rows from the store (numbers or numeric strings) add up, longest by the largest', () => {
  const s = addInto(addInto(emptySums(), { created: '2', prep_max_ms: 1000 }), { created: 3, prep_max_ms: '400' });
  assert.deepEqual([s.created, s.prep_max_ms], [5, 1000]);
});

test('the insights migrations (0009 and the columns added and dropped since) have a column for every figure and no other', () => {
  const sql = readFileSync(new URL('../../src/store/migrations/0009_insights.sql', import.meta.url), 'utf8');
  const columns = [...sql.matchAll(/^\s+(?:([a-z_0-9]+) (?:TEXT|INTEGER|BIGINT)[^,\n]*,?\s*)+$/gm)].flatMap((m) =>
    [...m[0].matchAll(/([a-z_0-9]+) (?:TEXT|INTEGER|BIGINT)/g)].map((x) => x[1]),
  );
  const dir = new URL('../../src/store/migrations/', import.meta.url);
  for (const file of readdirSync(dir)
    .filter((f) => f > '0009')
    .sort()) {
    const text = readFileSync(new URL(file, dir), 'utf8');
    for (const m of text.matchAll(/ALTER TABLE insight_hours ADD COLUMN ([a-z_0-9]+)/g)) columns.push(m[1]);
    // 0016 moved the rings by channel to rows of their own (decision 0074).
    for (const m of text.matchAll(/ALTER TABLE insight_hours DROP COLUMN ([a-z_0-9]+)/g)) columns.splice(columns.indexOf(m[1]), 1);
  }
  assert.deepEqual(
    columns.sort(),
    ['branch_id', 'mode', 'day', 'hour', 'queue', 'shard', 'weekday', ...SUM_COLUMNS, ...MAX_COLUMNS].sort(),
  );
});

test("on PostgreSQL each ticket's changes go to a row of the hour of its own, never the folded row 0; on SQLite to one", async () => {
  const { shardOf } = await import('../../src/store/insights-rollups.ts');
  const { newId } = await import('../../src/domain/ids.ts');
  // Ids made in the same millisecond count up in their last character; others are random.
  const rows = new Set<number>();
  for (let i = 0; i < 8000; i++) rows.add(shardOf(newId('ticket', 1_780_000_000_000), 'postgres'));
  for (let i = 0; i < 8000; i++) rows.add(shardOf(newId('ticket', 1_780_000_000_000 + i), 'postgres'));
  assert.equal(rows.size, 16000, 'no two tickets share a row');
  assert.ok(
    [...rows].every((n) => Number.isInteger(n) && n >= 1 && n <= 2 ** 31 - 1),
    'a shard fits the INTEGER column and is never the folded row 0',
  );
  const id = newId('ticket', Date.now());
  assert.equal(shardOf(id, 'postgres'), shardOf(id, 'postgres'), 'the same row for every change of a ticket');
  assert.equal(shardOf(id, 'sqlite'), 0);
});
