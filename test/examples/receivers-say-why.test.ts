// The example webhook receivers say why they reject a delivery (issue 36 item 13): a receiver
// started with the wrong secret answered 400 and printed nothing, which looked like silence. And
// one started without its secret says so and exits with code 2, instead of a KeyError traceback.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { owned } from '../helpers/child-processes.ts';
import { eventually } from '../helpers/eventually.ts';
import { freePort } from '../helpers/free-port.ts';
import { LANGUAGES, runBounded } from '../helpers/example-languages.ts';
import { signedHeaders } from '../../src/webhooks/signature.ts';

let scratch: string;
before(() => {
  scratch = mkdtempSync(path.join(tmpdir(), 'readybell-receivers-'));
});
after(() => rmSync(scratch, { recursive: true, force: true }));

const secret = (): string => `whsec_${randomBytes(24).toString('base64')}`;
const listening = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.end();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });

for (const language of LANGUAGES) {
  test(`${language.name}: a delivery signed with another secret is answered 400 and the receiver says why`, {
    skip: language.missing,
  }, async () => {
    const out = path.join(scratch, language.name.toLowerCase());
    const example = await language.build(out);
    const port = await freePort();
    const cmd = example.receiver(port, mkdtempSync(path.join(scratch, 'inbox-')));
    const child = owned(
      spawn(cmd.command, cmd.args, {
        cwd: cmd.cwd,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...cmd.env, READYBELL_WEBHOOK_SECRET: secret() },
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    try {
      await eventually(() => listening(port), `the ${language.name} receiver listens`, 60_000);
      const body = JSON.stringify({ id: 'evt_wrong_secret', type: 'ticket.created', data: {} });
      const headers = signedHeaders([secret()], 'evt_wrong_secret', Math.floor(Date.now() / 1000), body);
      const res = await fetch(`http://127.0.0.1:${port}/webhooks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
      });
      assert.equal(res.status, 400);
      await eventually(
        () => /rejected delivery evt_wrong_secret - no matching webhook-signature/.test(output),
        'the reason is printed',
        10_000,
      ).catch(() => assert.fail(`printed: ${JSON.stringify(output)}`));
    } finally {
      child.kill('SIGKILL');
    }
  });

  // PHP's receiver runs inside `php -S`, which stays up: it answers each request with the message.
  const stays = language.name === 'PHP';
  test(`${language.name}: without its secret the receiver says so ${stays ? 'to each request' : 'and exits'}`, {
    skip: language.missing,
  }, async () => {
    const example = await language.build(path.join(scratch, language.name.toLowerCase()));
    const port = await freePort();
    const cmd = example.receiver(port, scratch);
    if (stays) {
      const child = owned(
        spawn(cmd.command, cmd.args, { cwd: cmd.cwd, env: { PATH: process.env.PATH ?? '', ...cmd.env }, stdio: 'ignore' }),
      );
      try {
        await eventually(() => listening(port), `the ${language.name} receiver listens`, 60_000);
        const res = await fetch(`http://127.0.0.1:${port}/webhooks`, { method: 'POST', body: '{}' });
        assert.equal(res.status, 500);
        assert.match(await res.text(), /READYBELL_WEBHOOK_SECRET is not set/);
      } finally {
        child.kill('SIGKILL');
      }
      return;
    }
    const run = await runBounded(cmd, {}, 60_000);
    const said = run.stdout + run.stderr;
    assert.notEqual(run.code, 0, said);
    assert.match(said, /READYBELL_WEBHOOK_SECRET is not set/);
    assert.doesNotMatch(said, /Traceback|KeyError|Exception in thread/, said);
  });
}
