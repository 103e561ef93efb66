// The README's quick start, run as written (issue 36 item 11): its curl commands, in order, with
// the demo's test key and the ticket id the create answered, against a real server. The first
// ready a newcomer sends must ring something they can see; it used to answer `rang: false` (no
// page open, nothing said to open one). And the staff page link the demo prints opens on Test
// data, where the test key's tickets are, instead of an empty Live board.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { runCli } from '../helpers/cli.ts';
import { createTestStore } from '../helpers/store.ts';
import { initialMode } from '../../web/staff/src/initial-mode.ts';

const README = readFileSync(path.join(import.meta.dirname, '../../README.md'), 'utf8');
/** The first screen: everything before the documentation list. */
const quickStart = README.slice(0, README.indexOf('\n## Documentation'));

type Curl = { method: string; url: string; headers: Record<string, string>; body: string | undefined };

/** The curl commands of the quick start's code blocks (continuation lines joined), parsed. */
function curls(text: string): Curl[] {
  const blocks = [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
  const commands = blocks
    .join('\n')
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .filter((l) => l.startsWith('curl '));
  return commands.map((line) => {
    const words = [...line.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!);
    const out: Curl = { method: 'GET', url: '', headers: {}, body: undefined };
    for (let i = 1; i < words.length; i++) {
      const w = words[i]!;
      if (w === '-X') out.method = words[++i]!;
      else if (w === '-H') {
        const [name, ...value] = words[++i]!.split(':');
        out.headers[name!.trim().toLowerCase()] = value.join(':').trim();
      } else if (w === '-d') out.body = words[++i]!;
      else out.url = w;
    }
    return out;
  });
}

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t?.close());

test("the README's quick start, run as written with the demo's test key, rings the customer's page", async () => {
  assert.match(quickStart, /^KEY=rk_test_…$/m, 'the quick start names the test key once');
  const steps = curls(quickStart);
  assert.ok(steps.length >= 2, `the quick start's curl commands: ${steps.length}`);
  let ticketId: string | null = null;
  let last: { status: number; body: any } | null = null;
  for (const step of steps) {
    const fill = (s: string) =>
      s
        .replaceAll('http://localhost:3000', t.url)
        .replaceAll('$KEY', t.tenant.testKey)
        .replaceAll('tk_…', ticketId ?? 'tk_…');
    const res = await fetch(fill(step.url), {
      method: step.method,
      headers: Object.fromEntries(Object.entries(step.headers).map(([k, v]) => [k, fill(v)])),
      body: step.body,
    });
    last = { status: res.status, body: await res.json() };
    assert.ok(res.ok, `${step.method} ${step.url}: ${res.status} ${JSON.stringify(last.body)}`);
    if (ticketId === null && last.body.object === 'ticket') ticketId = last.body.id;
  }
  assert.equal(steps.at(-1)?.url.endsWith('/ready'), true, 'the quick start ends with a ready');
  assert.deepEqual(
    [last?.body.rang, last?.body.channel_used],
    [true, 'page'],
    `the first ready rings the customer's page: ${JSON.stringify(last?.body)}`,
  );
});

test('the staff page link the demo prints opens on Test data, where the test key’s tickets are', async () => {
  const store = await createTestStore();
  try {
    const demo = await runCli(store.env, ['demo']);
    assert.equal(demo.code, 0, demo.stderr);
    const link = /Staff page: (\S+)/.exec(demo.stdout)?.[1];
    assert.ok(link !== undefined, demo.stdout);
    const url = new URL(link);
    assert.equal(initialMode(url.search, null), 'test', `${link} opens on Test`);
    assert.equal((await fetch(t.url + url.pathname + url.search)).status, 200, 'the link serves the staff page');
  } finally {
    await store.drop();
  }
  // The README shows the same link.
  assert.match(quickStart, /Staff page: http:\/\/localhost:3000\/staff\/\?mode=test/);
  // A tab keeps its own choice; a plain /staff starts on Live, as a shop's staff expect.
  assert.equal(initialMode('', null), 'live');
  assert.equal(initialMode('', 'test'), 'test');
  assert.equal(initialMode('?mode=live', 'test'), 'live');
});
