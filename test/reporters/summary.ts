// A closing block for `node --test`, printed after the spec reporter's: what ran (tests, passed,
// failed, skipped), every skipped test with its reason, and the slowest files, so a suite that
// grows slower or quietly stops running something shows it in CI's log (issue 23, decision 0033).
// Its last line is "<suite>: N passed, N failed, N skipped", the plain closing line CI reads.
import path from 'node:path';

type Event = {
  type: string;
  data: {
    name?: string;
    nesting?: number;
    file?: string;
    skip?: string | boolean;
    todo?: string | boolean;
    details?: { duration_ms?: number; type?: string };
    counts?: { tests: number; passed: number; failed: number; skipped: number; cancelled: number; todo: number };
  };
};

const SLOWEST = 12;

export default async function* summary(source: AsyncIterable<Event>): AsyncGenerator<string> {
  const root = process.cwd();
  const rel = (file: string | undefined): string => (file ? path.relative(root, file) : '?');
  const fileMs = new Map<string, number>();
  // The tests' own time per file: what a file takes beyond it is its start-up and tear-down.
  const testMs = new Map<string, number>();
  const skipped: string[] = [];
  let counts: NonNullable<Event['data']['counts']> | null = null;
  for await (const event of source) {
    const { data } = event;
    // A file's own entry: nesting 0, named by the path the runner was given, completed once its
    // process has ended.
    if (event.type === 'test:complete' && data.nesting === 0 && data.file && data.name && path.resolve(data.name) === data.file) {
      fileMs.set(rel(data.file), data.details?.duration_ms ?? 0);
    } else if ((event.type === 'test:pass' || event.type === 'test:fail') && data.nesting === 0 && data.file) {
      const file = rel(data.file);
      testMs.set(file, (testMs.get(file) ?? 0) + (data.details?.duration_ms ?? 0));
    }
    if (event.type === 'test:pass' && data.skip !== undefined && data.skip !== false) {
      const reason = typeof data.skip === 'string' ? data.skip : 'no reason given';
      skipped.push(`${rel(data.file)}: ${data.name} (${reason})`);
    } else if (event.type === 'test:summary' && data.file === undefined && data.counts) {
      counts = data.counts;
    }
  }
  const suite = process.env.TEST_SUITE_NAME ?? 'tests';
  const lines: string[] = ['', `── ${suite}: summary ──`];
  if (counts) {
    lines.push(
      `tests ${counts.tests}, passed ${counts.passed}, failed ${counts.failed}, skipped ${counts.skipped}` +
        `${counts.cancelled ? `, cancelled ${counts.cancelled}` : ''}${counts.todo ? `, todo ${counts.todo}` : ''}; files ${fileMs.size}`,
    );
  }
  if (skipped.length > 0) {
    lines.push(`skipped (${skipped.length}):`);
    for (const s of skipped) lines.push(`  ${s}`);
  }
  const slowest = [...fileMs].sort((a, b) => b[1] - a[1]).slice(0, SLOWEST);
  const total = [...fileMs.values()].reduce((a, b) => a + b, 0);
  lines.push(`slowest files (of ${fileMs.size}, ${(total / 1000).toFixed(0)} s of file time in all):`);
  const s = (ms: number): string => `${(ms / 1000).toFixed(1).padStart(6)} s`;
  lines.push('    file    tests');
  for (const [file, ms] of slowest) lines.push(`  ${s(ms)} ${s(testMs.get(file) ?? 0)}  ${file}`);
  if (counts) {
    // Cancelled tests (a file's timeout, a crash) count as failed here: they did not pass.
    lines.push(`${suite}: ${counts.passed} passed, ${counts.failed + counts.cancelled} failed, ${counts.skipped} skipped`);
  }
  yield `${lines.join('\n')}\n`;
}
