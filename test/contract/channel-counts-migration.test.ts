// Migration 0016 (decision 0074): the insights' rings by channel move from a column per channel of
// insight_hours to rows keyed by channel, with every count of the history kept. Checked on
// whichever engine this run uses: a store built up to 0015 with counts in the old columns, then
// migrated by the store itself.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { loadConfig } from '../../src/config.ts';
import { openDb, sqliteFile } from '../../src/store/open-db.ts';
import { loadMigrations, MIGRATIONS_TABLE_SQL } from '../../src/store/migrations.ts';
import { rollupSums } from '../../src/store/insights-reads.ts';
import { addInto, emptySums, figuresOf } from '../../src/domain/insight-figures.ts';
import { createTestStore, storeName } from '../helpers/store.ts';

const OLD_ROW = `INSERT INTO insight_hours (branch_id, mode, day, hour, queue, shard, weekday, created, ready, rings,
  rings_push, rings_wallet, rings_page, rings_sms, rings_none, rings_unknown, rings_called_out)
  VALUES ('br_1', 'live', '2026-11-02', $1, 'main', $2, 1, 9, 9, 9, 3, 1, 2, 1, 1, 1, 4)`;

/** Applies the migrations before 0016 as the store would, and writes two hours of counts in the old columns. */
async function storeAt0015(env: Record<string, string>): Promise<void> {
  const steps = loadMigrations(storeName).filter((m) => m.version < 16);
  const record = 'INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, 0)';
  if (storeName === 'sqlite') {
    const db = new DatabaseSync(sqliteFile(env.DATA_DIR!));
    try {
      db.exec(MIGRATIONS_TABLE_SQL);
      for (const m of steps) {
        db.exec(m.sql);
        db.prepare(record.replace(/\$\d/g, '?')).run(m.version, m.name);
      }
      for (const [hour, shard] of [
        [10, 0],
        [11, 0],
      ])
        db.prepare(OLD_ROW.replace(/\$\d/g, '?')).run(hour!, shard!);
    } finally {
      db.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: env.DATABASE_URL });
  await client.connect();
  try {
    await client.query(MIGRATIONS_TABLE_SQL);
    for (const m of steps) {
      await client.query(m.sql);
      await client.query(record, [m.version, m.name]);
    }
    // On PostgreSQL an hour may hold several shards: the second hour in two.
    for (const [hour, shard] of [
      [10, 0],
      [11, 3],
    ])
      await client.query(OLD_ROW, [hour, shard]);
  } finally {
    await client.end();
  }
}

test('0016 keeps every ring counted by channel, and the figures read the same', async () => {
  const store = await createTestStore();
  try {
    await storeAt0015(store.env);
    const db = openDb(loadConfig({ LOG_LEVEL: 'silent', ...store.env }));
    try {
      // 0016 first; the migrations after it (this round's others) follow it on the way up.
      assert.equal((await db.migrate())[0], '0016_channel_counts');
      const rows = await db.query<{ channel: string; rings: number }>(
        'SELECT channel, SUM(rings) AS rings FROM insight_channel_hours GROUP BY channel ORDER BY channel',
      );
      assert.deepEqual(
        rows.map((r) => [r.channel, Number(r.rings)]),
        [
          ['none', 2],
          ['page', 4],
          ['push', 6],
          ['sms', 2],
          ['unknown', 2],
          ['wallet', 2],
        ],
      );
      const [period] = await rollupSums(db, 'br_1', 'live', { from: '2026-11-02', to: '2026-11-02' }, 'period');
      const f = figuresOf(addInto(emptySums(), period!), 0);
      assert.deepEqual(f.reached, { push: 6, wallet: 2, page: 4, sms: 2, whatsapp: 0, none: 2, unknown: 2 });
      assert.deepEqual([f.rings, f.called_out, f.ready], [18, 8, 18]);
      const byHour = await rollupSums(db, 'br_1', 'live', { from: '2026-11-02', to: '2026-11-02' }, 'hour');
      assert.deepEqual(
        byHour.map((r) => [Number(r.hour), Number(r.rings_push)]).sort(),
        [
          [10, 3],
          [11, 3],
        ],
        'each hour keeps its own',
      );
      const columns = await db.query('SELECT * FROM insight_hours LIMIT 1');
      assert.equal(Object.keys(columns[0]!).includes('rings_push'), false, 'the old columns are gone');
    } finally {
      await db.close();
    }
  } finally {
    await store.drop();
  }
});
