// Insights survive a crash (issue 17): a real `readybell serve` killed outright (SIGKILL) in the
// middle of a burst of creates, readies and collects leaves rollups that count exactly the
// changes the store kept: every committed change once, nothing that did not commit. What the
// store holds is read straight from it, not through the API.
//
// Creates carry an Idempotency-Key, as the integrator guide asks.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { startServerProcess } from '../helpers/server-process.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

type Truth = { created: number; ready: number; collected: number };

async function stored(): Promise<Truth> {
  const [row] = await t.app.services.db.query<Record<string, unknown>>(
    "SELECT COUNT(*) AS created, COUNT(ready_at) AS ready, COUNT(collected_at) AS collected FROM tickets WHERE branch_id = $1 AND mode = 'test'",
    [t.tenant.branchId],
  );
  return { created: Number(row!.created), ready: Number(row!.ready), collected: Number(row!.collected) };
}

async function counted(): Promise<Truth> {
  const [row] = await t.app.services.db.query<Record<string, unknown>>(
    "SELECT SUM(created) AS created, SUM(ready) AS ready, SUM(collected) AS collected FROM insight_hours WHERE branch_id = $1 AND mode = 'test'",
    [t.tenant.branchId],
  );
  return { created: Number(row!.created ?? 0), ready: Number(row!.ready ?? 0), collected: Number(row!.collected ?? 0) };
}

// The burst is about a crash, not about rate limits: room for every till's writes. With Redis the
// buckets outlive the process, so the server started again would otherwise answer 429.
const roomy = { RATE_LIMIT_WRITES_BURST: '1000000' };

test('killed in the middle of a burst, the rollups count exactly the changes the store kept', async () => {
  const server = await startServerProcess(t, roomy);
  const post = (path: string) =>
    fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.tenant.testKey}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      body: '{}',
    });
  let acknowledged = 0;
  let stop = false;
  // Ten tills, each creating, readying and collecting as fast as it is answered, until the kill.
  const till = async (): Promise<void> => {
    while (!stop) {
      try {
        const created = await post('/v1/tickets');
        if (created.status !== 201) continue;
        acknowledged += 1;
        const { id } = (await created.json()) as { id: string };
        if ((await post(`/v1/tickets/${id}/ready`)).status !== 200) continue;
        await post(`/v1/tickets/${id}/collect`);
      } catch {
        return; // the server is gone
      }
    }
  };
  const tills = Array.from({ length: 10 }, till);
  while (acknowledged < 60) await new Promise((r) => setTimeout(r, 20));
  await server.kill('SIGKILL');
  stop = true;
  await Promise.all(tills);

  const truth = await stored();
  assert.ok(truth.created >= acknowledged, `every acknowledged create is stored (${acknowledged} acknowledged, ${truth.created} stored)`);
  assert.ok(truth.ready > 0 && truth.collected > 0, JSON.stringify(truth));
  assert.deepEqual(await counted(), truth, 'the rollups count what the store kept, each change once');

  // A server started again goes on counting from there.
  const again = await startServerProcess(t, roomy);
  try {
    const res = await fetch(`${again.url}/v1/tickets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.tenant.testKey}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      body: '{}',
    });
    assert.equal(res.status, 201);
  } finally {
    await again.kill('SIGTERM');
  }
  assert.deepEqual(await counted(), { ...truth, created: truth.created + 1 });
});
