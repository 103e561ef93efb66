// Runs one test suite with `node --test` (decision 0033): which files, on which engine, with what
// limits, and the closing summary of what ran.
//
//   node test/run.ts                 every test file, on the embedded store
//   TEST_DATABASE_URL=… TEST_REDIS_URL=… node test/run.ts
//                                    the files whose behaviour can differ between engines, on
//                                    PostgreSQL + Redis (TEST_ALL_FILES=1: every file)
//   node test/run.ts --browser       the browser tests (test/e2e/**/*.e2e.ts), one file at a time
//   node test/run.ts FILE…           just those files, on whichever engine the environment names
//
// A file runs on both engines unless it says why it need not, in a line of its own near the top:
//   // One engine: <why nothing it checks goes through the store, the bus or the limiter differently>
// Unit tests (test/unit/) touch no store and run once. So a new test file runs on both engines
// until someone writes down why it need not.
import { randomBytes } from 'node:crypto';
import { globSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import summary from './reporters/summary.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ONE_ENGINE = /^\/\/ One engine: (.+)$/m;
// Per test (and hook), generous: a test that needs more is waiting for something that will not
// come. The exit watchdog then ends its file even if a handle would keep it alive.
const TEST_TIMEOUT_MS = Number(process.env.TEST_TIMEOUT_MS ?? 180_000);

// Node's compile cache: a test file's process, and each server or CLI process it starts, imports
// about 250 TypeScript files; stripped and compiled once per run instead of once per process, a
// start costs half the CPU (0.67 s to 0.35 s for src/app.ts, measured). Node checks each entry
// against the file's contents, so an edited file is compiled again.
process.env.NODE_COMPILE_CACHE ??= path.join(ROOT, 'node_modules/.cache/node-compile-cache');

const engine = process.env.TEST_DATABASE_URL ? 'postgres' : 'embedded';
const browser = process.argv[2] === '--browser';
const named = process.argv.slice(browser ? 3 : 2);
const all = globSync(browser ? 'test/e2e/**/*.e2e.ts' : 'test/**/*.test.ts', { cwd: ROOT }).sort();

function oneEngineReason(file: string): string | null {
  if (file.startsWith(`test${path.sep}unit${path.sep}`)) return 'unit test: no store';
  const head = readFileSync(path.join(ROOT, file), 'utf8').slice(0, 2000);
  return ONE_ENGINE.exec(head)?.[1] ?? null;
}

let files: string[];
if (named.length > 0) files = named;
else if (browser || engine === 'embedded' || process.env.TEST_ALL_FILES === '1') files = all;
else files = all.filter((f) => oneEngineReason(f) === null);

const suite = process.env.TEST_SUITE_NAME ?? (browser ? 'browser' : engine);
// The summary reporter runs in this process and names the suite in its closing line.
process.env.TEST_SUITE_NAME = suite;
console.log(
  `${suite}: ${files.length} of ${all.length} test files on the ${engine === 'postgres' ? 'PostgreSQL + Redis' : 'embedded'} store`,
);
if (!browser && engine === 'postgres' && named.length === 0 && files.length < all.length) {
  console.log(`(${all.length - files.length} files run once, on the embedded store: unit tests, and files marked "One engine")`);
}

// On PostgreSQL, every app's store is copied from one migrated template (test/helpers/store.ts),
// named here for this run, made by the first file that needs it and dropped when the run ends.
const pgTemplate = engine === 'postgres' && !process.env.TEST_PG_TEMPLATE ? `rb_tpl_${randomBytes(6).toString('hex')}` : null;
if (pgTemplate !== null) process.env.TEST_PG_TEMPLATE = pgTemplate;
// On the embedded store, the same: a migrated DATA_DIR that each app's directory starts as a copy of.
const sqliteTemplate =
  engine === 'embedded' && !browser && !process.env.TEST_SQLITE_TEMPLATE
    ? path.join(tmpdir(), `readybell-tpl-${randomBytes(6).toString('hex')}`)
    : null;
if (sqliteTemplate !== null) process.env.TEST_SQLITE_TEMPLATE = sqliteTemplate;

// Through run() rather than `node --test`, so that this process writes the spec report, then the
// summary. A file's process that its tests left running is stopped by test/helpers/exit-watchdog.ts,
// not by forceExit, which was seen to cut a file's last results (decision 0033).
const stream = run({
  files,
  cwd: ROOT,
  // Four files at a time on two cores: a test file spends most of its time waiting (on its
  // servers, the store, timers), so two left about a core idle (the embedded suite: 5.1 min of
  // CPU in 5.0 min); four took 3.9 min where two took 5.0, and every test passed at loads of 5-10. Browser tests one at a time: two Chromiums on two cores make their timings flaky.
  concurrency: Number(process.env.TEST_CONCURRENCY ?? (browser ? 1 : 4)),
  timeout: TEST_TIMEOUT_MS,
  execArgv: ['--import', path.join(ROOT, 'test/helpers/exit-watchdog.ts')],
});
const forSummary = new PassThrough({ objectMode: true });
stream.on('test:fail', (data) => {
  if (!data.todo) process.exitCode = 1;
});
stream.on('data', (event) => forSummary.write(event));
stream.on('end', () => forSummary.end());
const closing = (async () => {
  let text = '';
  for await (const chunk of forSummary.compose(summary)) text += chunk;
  return text;
})();
for await (const chunk of stream.compose(spec)) process.stdout.write(chunk);
process.stdout.write(await closing);
if (sqliteTemplate !== null) rmSync(sqliteTemplate, { recursive: true, force: true });
if (pgTemplate !== null) {
  const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${pgTemplate} WITH (FORCE)`);
  await admin.end();
}
