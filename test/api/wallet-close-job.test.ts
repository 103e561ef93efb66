// One engine: the close job's decision (come back after the grace, or fail for the runner's backoff) is the handler's own; the store only hands it the ticket.
// A closed ticket's wallet job asks each issuer on its own (channels/wallet/close-job.ts): an
// issuer that fails must not bring the job back before the grace, when Apple's next run would
// erase device registrations a phone had not yet used to fetch the close (decision 0071).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { FakeClock } from '../helpers/clock.ts';
import { JobRegistry } from '../../src/core/job-registry.ts';
import type { ClaimedJob } from '../../src/core/jobs.ts';
import { registerWalletJobs, WALLET_CLOSE_GRACE_MS } from '../../src/channels/wallet/close-job.ts';
import type { WalletIssuer, WalletOutcome } from '../../src/channels/wallet/issuer.ts';

const clock = new FakeClock();
let t: TestApp;
before(async () => {
  t = await startTestApp({ clock });
});
after(async () => {
  await t?.close();
});

const issuer = (name: 'apple' | 'google', answer: () => Promise<WalletOutcome | null>): WalletIssuer & { calls: number } => {
  const i = {
    name,
    calls: 0,
    update: () => {
      i.calls++;
      return answer();
    },
  };
  return i;
};

async function closeJob(): Promise<ClaimedJob> {
  const ticket = (await t.request('POST', '/v1/tickets', { body: {} })).body;
  assert.equal((await t.request('POST', `/v1/tickets/${ticket.id}/collect`)).status, 200);
  const payload = { ticket_id: ticket.id, branch_id: t.tenant.branchId, mode: 'test', reason: 'collected' };
  return {
    id: 'job_1',
    kind: 'wallet_close',
    key: `wallet-close:${ticket.id}`,
    payload: JSON.stringify(payload),
    attempts: 0,
  } as ClaimedJob;
}

test('Apple still has registrations to erase and Google fails: both are asked again after the grace, not sooner', async () => {
  const apple = issuer('apple', async () => ({ delivered: false, detail: 'told 1 device', pending: true }));
  const google = issuer('google', async () => {
    throw new Error('database unreachable');
  });
  const jobs = registerWalletJobs(new JobRegistry(), [apple, google]);
  const result = await jobs.run(t.app.services, await closeJob());
  assert.deepEqual(result, { retryAt: clock.now() + WALLET_CLOSE_GRACE_MS });
  assert.equal(apple.calls, 1);
  assert.equal(google.calls, 1);
});

test('nothing waits for the grace and an issuer fails: the job fails, for the runner to retry with its backoff', async () => {
  const apple = issuer('apple', async () => null);
  const google = issuer('google', async () => {
    throw new Error('database unreachable');
  });
  const jobs = registerWalletJobs(new JobRegistry(), [apple, google]);
  await assert.rejects(jobs.run(t.app.services, await closeJob()), /database unreachable/);
  assert.equal(apple.calls, 1, 'the other issuer was still told');
});
