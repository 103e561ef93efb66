// Loaded into every test file's process by test/run.ts (--import): once the file's tests are
// done, a process still running two minutes later is stopped, naming the file, so a handle left
// open (a server, a socket, an interval) cannot hold the suite. An unref'd timer: it fires only
// when something else keeps the process alive.
//
// Not node:test's forceExit: that ends the process as soon as the last test finishes and has
// been seen to cut the file's last results on their way to the runner (23 tests of
// ticket-state.test.ts vanished from a run, uncounted and unreported). Two minutes after the
// root's `after` hooks begin, every result has long been written (issue 23, decision 0033).
import { after } from 'node:test';

const GRACE_MS = Number(process.env.TEST_EXIT_GRACE_MS ?? 120_000);

after(() => {
  setTimeout(() => {
    process.stderr.write(
      `\n${process.argv[1]}: still running ${GRACE_MS / 1000} s after its tests ended; something left a handle open. Stopped.\n`,
    );
    process.exit(1);
  }, GRACE_MS).unref();
});
