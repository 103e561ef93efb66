// The job registry (src/core/job-registry.ts): a kind's handler receives the payload its jobs were
// built with, a kind has one handler, and a job of a kind nobody handles fails (and is retried).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defineJobKind, JobRegistry } from '../../src/core/job-registry.ts';
import { newJob } from '../../src/store/outbox.ts';
import type { Services } from '../../src/core/ctx.ts';
import type { ClaimedJob } from '../../src/core/jobs.ts';

type Payload = { ticket_id: string; n: number };
const KIND = defineJobKind<Payload>('example');
const services = {} as Services;
const claimed = (kind: string, payload: unknown): ClaimedJob => ({
  id: 'job_1',
  kind,
  key: 'k',
  payload: JSON.stringify(payload),
  attempts: 1,
  lane: 'ring',
  accountId: null,
  endpointId: null,
});

test("a job is built from its kind's payload and handed back to that kind's handler as written", async () => {
  const job = newJob(KIND, 'example:1', { ticket_id: 'tk_1', n: 2 }, 5_000, 1_000);
  assert.deepEqual(
    { ...job, id: undefined },
    {
      id: undefined,
      kind: 'example',
      key: 'example:1',
      payload: { ticket_id: 'tk_1', n: 2 },
      runAt: 5_000,
      createdAt: 1_000,
      lane: 'ring',
      accountId: null,
      endpointId: null,
    },
  );
  const seen: Payload[] = [];
  const registry = new JobRegistry().set(KIND, async (_s, p) => {
    seen.push(p);
    return { retryAt: p.n };
  });
  assert.deepEqual(await registry.run(services, claimed('example', job.payload)), { retryAt: 2 });
  assert.deepEqual(seen, [{ ticket_id: 'tk_1', n: 2 }]);
  assert.deepEqual([...registry.keys()], ['example']);
});

test('one handler per kind, and a job of an unknown kind fails', async () => {
  const registry = new JobRegistry().set(KIND, async () => {});
  assert.throws(() => registry.set(defineJobKind<Payload>('example'), async () => {}), /registered twice/);
  await assert.rejects(registry.run(services, claimed('nobody', {})), /no task for job kind nobody/);
});
