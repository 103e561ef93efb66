// A running job is never claimed twice (issue 36 item 4): its runner renews its lease while it runs,
// so a job longer than JOB_LEASE_MS (a webhook's 10 s timeout against a shorter lease) is not
// claimed by another node's runner meanwhile. Two runners share one store; the jobs' times follow a
// fake clock, moved past the lease the job was claimed with.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { FakeClock } from '../helpers/clock.ts';
import { eventually } from '../helpers/eventually.ts';
import { defineJobKind, JobRegistry } from '../../src/core/job-registry.ts';
import { DEFAULT_RUNNER_OPTIONS, JobRunner } from '../../src/runner/runner.ts';
import { enqueueJob, newJob } from '../../src/store/outbox.ts';

const clock = new FakeClock();
let t: TestApp;
before(async () => {
  t = await startTestApp({ clock });
});
after(() => t?.close());

const LEASE_MS = 1500;

test('a job running longer than its lease is not claimed by another runner', async () => {
  const slow = defineJobKind<Record<string, never>>('test_slow_delivery', 'webhook');
  let runs = 0;
  let finish!: () => void;
  const held = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const tasks = new JobRegistry().set(slow, async () => {
    runs++;
    await held;
  });
  const opts = { ...DEFAULT_RUNNER_OPTIONS, leaseMs: LEASE_MS };
  const [nodeA, nodeB] = [new JobRunner(t.app.services, tasks, opts), new JobRunner(t.app.services, tasks, opts)];
  const { db } = t.app.services;
  const start = clock.now();
  await db.write((tx) => enqueueJob(tx, newJob(slow, 'slow:1', {}, start, start)));
  const leasedUntil = async (): Promise<number> =>
    Number((await db.query<{ locked_until: number }>("SELECT locked_until FROM jobs WHERE key = 'slow:1'"))[0]!.locked_until);

  const ranA = nodeA.runOnce();
  await eventually(() => runs === 1, 'node A runs the job');
  assert.equal(await leasedUntil(), start + LEASE_MS);

  // Two thirds of the lease later, node A has renewed it (every third of a lease)…
  clock.advance(1000);
  await eventually(async () => (await leasedUntil()) > start + LEASE_MS, 'node A renews the lease while the job runs');
  // …so past the lease it was claimed with, node B finds nothing to claim.
  clock.advance(1000);
  assert.ok(clock.now() > start + LEASE_MS);
  assert.equal(await nodeB.runOnce(), 0, 'node B claims nothing');
  assert.equal(runs, 1, 'the job ran once');

  finish();
  assert.equal(await ranA, 1);
  clock.advance(10 * LEASE_MS);
  assert.equal(await nodeB.runOnce(), 0, 'the finished job is not run again');
  assert.equal(runs, 1);
});
