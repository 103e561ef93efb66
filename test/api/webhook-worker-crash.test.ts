// A `readybell worker` process killed in the middle of a delivery loses nothing: the job's lease
// (JOB_LEASE_MS, 2 s here instead of 30 s) runs out and another worker delivers the same event. The second worker is stopped with SIGTERM
// right after its request reached the receiver: a graceful stop finishes the job in flight.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { nodeEnv, owned } from '../helpers/child-processes.ts';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { createEndpoint, createTicket, deliveriesOf } from '../helpers/webhooks.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

let t: TestApp;
let receiver: WebhookReceiver;
const children: ChildProcess[] = [];

before(async () => {
  // Real clock: the worker processes run on real time, and the jobs' run_at must agree with it.
  t = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
  receiver = await new WebhookReceiver().start();
});
after(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await receiver.close();
  await t.close();
});

function startWorker(): ChildProcess {
  const { config } = t.app.services;
  const store: Record<string, string> = config.databaseUrl !== null ? { DATABASE_URL: config.databaseUrl } : { DATA_DIR: config.dataDir };
  const child = owned(
    spawn(process.execPath, ['src/cli/main.ts', 'worker'], {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        LOG_LEVEL: 'silent',
        ...nodeEnv(),
        WEBHOOK_ALLOW_PRIVATE: 'true',
        JOB_LEASE_MS: '2000',
        ...store,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    }),
  );
  children.push(child);
  return child;
}

const exited = (c: ChildProcess): Promise<{ code: number | null; signal: string | null }> =>
  c.exitCode !== null || c.signalCode !== null
    ? Promise.resolve({ code: c.exitCode, signal: c.signalCode })
    : new Promise((resolve) => c.once('exit', (code, signal) => resolve({ code, signal })));

test('a worker killed mid-delivery: after its lease, another worker delivers the same event', async () => {
  const e = await createEndpoint(t, { url: `${receiver.url}/hook` });
  receiver.secrets = [e.secret];
  receiver.answer = (_d, n) => (n === 1 ? 'hold' : { status: 200, body: 'ok' });

  const first = startWorker();
  await createTicket(t);
  await receiver.waitFor(1, 20_000);
  first.kill('SIGKILL');
  assert.equal((await exited(first)).signal, 'SIGKILL');

  let [delivery] = await deliveriesOf(t, e.id);
  assert.equal(delivery.status, 'pending');
  assert.equal(delivery.attempt_count, 0, 'the killed attempt left no trace but its lease');
  const [job] = await t.app.services.db.query<{ locked_until: number | null; done_at: number | null; attempts: number }>(
    'SELECT locked_until, done_at, attempts FROM jobs WHERE key = $1',
    [`deliver:${delivery.event}:${e.id}`],
  );
  assert.ok(
    job !== undefined && job.done_at === null && job.locked_until !== null && Number(job.attempts) === 1,
    'the job was left leased to the dead worker',
  );

  const second = startWorker();
  await receiver.waitFor(2, 20_000);
  second.kill('SIGTERM');
  assert.deepEqual(await exited(second), { code: 0, signal: null });

  const [a, b] = receiver.deliveries;
  assert.equal(a!.event!.id, b!.event!.id);
  assert.deepEqual(b!.verifiedBy, [e.secret]);
  [delivery] = await deliveriesOf(t, e.id);
  assert.equal(delivery.status, 'succeeded', 'SIGTERM let the job in flight finish');
  assert.equal(delivery.attempt_count, 1);
  assert.equal(delivery.attempts[0].response_status, 200);
});
