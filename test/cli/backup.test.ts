// `readybell backup FILE` and `readybell restore FILE` on the embedded store, as a café's operator
// runs them: from a second process while the server takes orders.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { loadConfig } from '../../src/config.ts';
import { createApp } from '../../src/app.ts';
import { sqliteFile } from '../../src/store/open-db.ts';
import { backupStore } from '../../src/store/sqlite/backup.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { runCli, runCliJson } from '../helpers/cli.ts';
import { onlyOnEmbedded } from '../helpers/store.ts';
import { eventually } from '../helpers/eventually.ts';

// Backups of the embedded store are tested in the embedded run; in the PostgreSQL run they would
// repeat the same thing, so only the refusal (which names PostgreSQL's own tools) runs there too.

const UNLIMITED = { RATE_LIMIT_WRITES_BURST: '10000000', RATE_LIMIT_WRITES_PER_SECOND: '10000000' };

function scratch(): { dir: string; drop(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'readybell-backup-'));
  return { dir, drop: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Creates tickets on `workers` connections until stopped; records when each 201 arrived. */
function createLoad(t: TestApp, workers: number) {
  const acked: Array<{ id: string; at: number }> = [];
  const failures: string[] = [];
  let running = true;
  const loops = Array.from({ length: workers }, async () => {
    while (running) {
      const res = await t.request('POST', '/v1/tickets', { body: { queue: 'A' } });
      if (res.status === 201) acked.push({ id: res.body.id, at: performance.now() });
      else failures.push(`${res.status} ${res.text}`);
    }
  });
  return {
    acked,
    failures,
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

function ticketIds(file: string): Set<string> {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    return new Set((db.prepare('SELECT id FROM tickets').all() as Array<{ id: string }>).map((r) => r.id));
  } finally {
    db.close();
  }
}

test(
  'backup under continuous create load holds every ticket acknowledged before it began; the restored store opens and serves',
  onlyOnEmbedded,
  async () => {
    const t = await startTestApp({ env: UNLIMITED });
    const out = scratch();
    try {
      const load = createLoad(t, 6);
      await eventually(() => load.acked.length >= 300, '300 acknowledged creates', 20_000);
      const began = performance.now();
      const before = load.acked.map((a) => a.id);
      const file = path.join(out.dir, 'readybell-backup.db');
      const backup = await runCli({ DATA_DIR: t.app.services.config.dataDir }, ['backup', file, '--json']);
      const ended = performance.now();
      await load.stop();
      assert.equal(backup.code, 0, backup.stderr);
      assert.deepEqual(load.failures, []);
      assert.ok(
        load.acked.some((a) => a.at > began && a.at < ended),
        'the server went on acknowledging creates while the backup ran',
      );

      const facts = JSON.parse(backup.stdout);
      assert.equal(facts.file, file);
      assert.deepEqual(readdirSync(out.dir), ['readybell-backup.db'], 'one self-contained file, nothing beside it');
      assert.equal(facts.bytes, readFileSync(file).length);
      const inBackup = ticketIds(file);
      assert.equal(facts.tickets, inBackup.size);
      assert.deepEqual(
        before.filter((id) => !inBackup.has(id)),
        [],
        'every ticket acknowledged before the backup began is in it',
      );

      const dataDir = path.join(out.dir, 'restored');
      const restore = await runCli({ DATA_DIR: dataDir }, ['restore', file]);
      assert.equal(restore.code, 0, restore.stderr);
      assert.match(restore.stdout, /Restored .* into .*restored/);
      assert.deepEqual(readdirSync(dataDir), ['readybell.db']);

      const restored = await createApp(loadConfig({ LOG_LEVEL: 'silent', PORT: '0', DATA_DIR: dataDir }));
      try {
        await restored.server.listen({ port: 0, host: '127.0.0.1' });
        const { port } = restored.server.server.address() as { port: number };
        const auth = { authorization: `Bearer ${t.tenant.testKey}` };
        const first = await fetch(`http://127.0.0.1:${port}/v1/tickets/${before[0]}`, { headers: auth });
        assert.equal(first.status, 200);
        assert.equal(((await first.json()) as { id: string }).id, before[0]);
        const created = await fetch(`http://127.0.0.1:${port}/v1/tickets`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ queue: 'A' }),
        });
        assert.equal(created.status, 201, 'the restored store takes writes');
        await created.arrayBuffer();
      } finally {
        await restored.close();
      }
    } finally {
      out.drop();
      await t.close();
    }
  },
);

test('a backup copied a page at a time still ends under continuous writes, as of the moment it began', {
  ...onlyOnEmbedded,
  timeout: 60_000,
}, async () => {
  // Without a pinned snapshot, every commit made by another connection restarts SQLite's copy,
  // which then never ends while the café takes orders. Commits here do not wait for the disk
  // (SQLITE_SYNCHRONOUS=NORMAL), so that a slow fsync leaves no quiet gap for a copy to slip through.
  const t = await startTestApp({ env: { ...UNLIMITED, SQLITE_SYNCHRONOUS: 'NORMAL' } });
  const out = scratch();
  try {
    // A store of a few thousand pages: a page per step then spans many commits.
    await t.app.services.db.run(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
      INSERT INTO tickets (id, branch_id, mode, queue, number, display_number, status, token, created_at, closed_at, expires_at, updated_at)
      SELECT 'tk_old_' || i, 'br_old', 'test', 'A', i, 'A-' || i, 'collected', 'old-' || i, 0, 0, 0, 0 FROM n`);
    const load = createLoad(t, 4);
    await eventually(() => load.acked.length >= 200, '200 acknowledged creates', 20_000);
    const before = load.acked.map((a) => a.id);
    const started = performance.now();
    const copying = backupStore(sqliteFile(t.app.services.config.dataDir), path.join(out.dir, 'b.db'), { pagesPerStep: 1 });
    // Bounded by orders, not by seconds: a copy that restarts on every commit never ends, and one
    // that works ends while the café takes about 3,000 orders (3 s at a load of 6). A slow machine
    // slows both alike.
    const atStart = load.acked.length;
    let poll: NodeJS.Timeout | undefined;
    const tooMany = new Promise<false>((resolve) => {
      poll = setInterval(() => {
        if (load.acked.length - atStart >= 30_000) resolve(false);
      }, 50);
    });
    const finished = await Promise.race([copying.then(() => true), tooMany]);
    clearInterval(poll);
    const ended = performance.now();
    await load.stop();
    assert.ok(finished, 'the backup ended before the server had taken 30,000 more orders');
    const facts = await copying;
    assert.deepEqual(load.failures, []);
    assert.ok(
      load.acked.some((a) => a.at > started && a.at < ended),
      'writes went on during the copy',
    );
    const inBackup = ticketIds(facts.file);
    assert.deepEqual(
      before.filter((id) => !inBackup.has(id)),
      [],
    );
    assert.deepEqual(
      load.acked.filter((a) => a.at > ended).filter((a) => inBackup.has(a.id)),
      [],
      'nothing acknowledged after the copy ended is in it',
    );
  } finally {
    out.drop();
    await t.close();
  }
});

test(
  'restore refuses a non-empty DATA_DIR, a file that is not a readybell store, a damaged or newer one, and leaves nothing behind',
  onlyOnEmbedded,
  async () => {
    const out = scratch();
    try {
      const source = path.join(out.dir, 'source');
      await runCliJson({ DATA_DIR: source }, ['demo']);
      const good = path.join(out.dir, 'good.db');
      await runCliJson({ DATA_DIR: source }, ['backup', good]);

      const textFile = path.join(out.dir, 'notes.txt');
      writeFileSync(textFile, 'not a database, just notes\n'.repeat(400));
      const foreign = path.join(out.dir, 'foreign.db');
      const f = new DatabaseSync(foreign);
      f.exec("CREATE TABLE orders (id INTEGER PRIMARY KEY, item TEXT); INSERT INTO orders (item) VALUES ('pho')");
      f.close();
      const damaged = path.join(out.dir, 'damaged.db');
      const bytes = readFileSync(good);
      writeFileSync(damaged, bytes.subarray(0, Math.floor(bytes.length / 8192) * 4096));
      const newer = path.join(out.dir, 'newer.db');
      copyFileSync(good, newer);
      const n = new DatabaseSync(newer);
      n.exec("INSERT INTO schema_migrations (version, name, applied_at) VALUES (9999, '9999_from_the_future', 0)");
      n.close();

      const occupied = path.join(out.dir, 'occupied');
      await runCliJson({ DATA_DIR: occupied }, ['migrate']);
      const occupiedBefore = readdirSync(occupied).sort();

      const cases: Array<[string, string, RegExp]> = [
        [good, occupied, /DATA_DIR .*occupied is not empty \(it holds readybell\.db.*\); restore writes only into an empty directory/],
        [textFile, path.join(out.dir, 'r1'), /notes\.txt is not a readybell store \(file is not a database\)/],
        [foreign, path.join(out.dir, 'r2'), /foreign\.db is not a readybell store \(it has no schema_migrations\)/],
        [damaged, path.join(out.dir, 'r3'), /damaged\.db is damaged/],
        [newer, path.join(out.dir, 'r4'), /newer\.db was written by a newer readybell \(migration 9999_from_the_future\)/],
        [path.join(out.dir, 'missing.db'), path.join(out.dir, 'r5'), /There is no backup file at .*missing\.db/],
      ];
      const runs = await Promise.all(cases.map(([file, dataDir]) => runCli({ DATA_DIR: dataDir }, ['restore', file])));
      for (const [i, [file, dataDir, message]] of cases.entries()) {
        const r = runs[i]!;
        assert.notEqual(r.code, 0, `restore ${file} exited 0`);
        assert.match(r.stderr, message);
        assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
        if (dataDir !== occupied) assert.equal(existsSync(dataDir), false, `restore of ${path.basename(file)} left ${dataDir} behind`);
      }
      assert.deepEqual(readdirSync(occupied).sort(), occupiedBefore, 'the store in the way is untouched');

      // An empty directory that already exists (a mounted volume, with its lost+found) is empty
      // enough, and a failed restore leaves it as it was.
      const volume = path.join(out.dir, 'volume');
      mkdirSync(path.join(volume, 'lost+found'), { recursive: true });
      const failed = await runCli({ DATA_DIR: volume }, ['restore', damaged]);
      assert.notEqual(failed.code, 0);
      assert.deepEqual(readdirSync(volume), ['lost+found']);
      const restored = await runCliJson({ DATA_DIR: volume }, ['restore', good]);
      assert.equal(restored.file, sqliteFile(volume));
      assert.deepEqual(readdirSync(volume).sort(), ['lost+found', 'readybell.db']);
    } finally {
      out.drop();
    }
  },
);

test('backup refuses what it cannot do with a clear message', onlyOnEmbedded, async () => {
  const out = scratch();
  try {
    const dataDir = path.join(out.dir, 'data');
    await runCliJson({ DATA_DIR: dataDir }, ['migrate']);
    const cases: Array<[Record<string, string>, string[], RegExp]> = [
      [{ DATA_DIR: path.join(out.dir, 'nothing-here') }, ['backup', path.join(out.dir, 'b.db')], /no embedded store at .*nothing-here/],
      [{ DATA_DIR: dataDir }, ['backup', sqliteFile(dataDir)], /is the live store itself/],
      [{ DATA_DIR: dataDir }, ['backup', path.join(out.dir, 'no', 'such', 'b.db')], /The directory .*no\/such does not exist/],
      [{ DATA_DIR: dataDir }, ['backup'], /Usage: readybell backup FILE/],
    ];
    const runs = await Promise.all(cases.map(([env, args]) => runCli(env, args)));
    for (const [i, [, args, message]] of cases.entries()) {
      assert.notEqual(runs[i]!.code, 0, `readybell ${args.join(' ')} exited 0`);
      assert.match(runs[i]!.stderr, message);
    }
    assert.deepEqual(readdirSync(out.dir).sort(), ['data']);
  } finally {
    out.drop();
  }
});

test('with DATABASE_URL set, backup and restore say they are for the embedded store and point to pg_dump', async () => {
  const env = { DATABASE_URL: 'postgres://readybell@127.0.0.1:1/readybell' };
  const [backup, restore] = await Promise.all([
    runCli(env, ['backup', '/tmp/never-written.db']),
    runCli(env, ['restore', '/tmp/never-read.db']),
  ]);
  assert.notEqual(backup.code, 0);
  assert.match(backup.stderr, /readybell backup copies the embedded store.*back it up with pg_dump/);
  assert.notEqual(restore.code, 0);
  assert.match(restore.stderr, /readybell restore puts back a backup of the embedded store.*pg_restore/);
  assert.equal(existsSync('/tmp/never-written.db'), false);
});
