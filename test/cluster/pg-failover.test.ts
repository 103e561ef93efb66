// Surviving a PostgreSQL failover (issue 36 item 8). The test builds its own primary and hot
// standby (streaming replication, synchronous: a commit is acknowledged once the standby has it),
// puts a TCP proxy in front of them as the one address the nodes know (a virtual IP or a DNS name
// in a real deployment), and runs two `readybell serve` processes through it while clients create
// and ready tickets with Idempotency-Keys on both, retrying what fails. Then the primary crashes,
// the standby is promoted and the address re-pointed to it. The nodes serve again within 10 s of
// the promotion without a restart, their /readyz says the store was lost and that the server
// behind the address changed, no acknowledged create or ready is missing on the new primary, and
// no ticket rang twice. Skipped, with the reason, without the PostgreSQL server binaries.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { startCluster, type Cluster, type ClusterNode } from '../helpers/cluster.ts';
import { startReplication, replicationMissing, type Replication } from '../helpers/pg-replication.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';
import { needsCluster } from '../helpers/store.ts';

const CLIENTS = 4;
const BEFORE_MS = 2_000;
const OUTAGE_MS = 1_000;
const RECOVERY_BOUND_MS = 10_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const skip = needsCluster.skip !== false ? needsCluster.skip : (replicationMissing ?? false);

let replication: Replication | undefined;
let proxy: TcpProxy | undefined;
let cluster: Cluster | undefined;

after(async () => {
  await cluster?.close().catch(() => {});
  await proxy?.close();
  await replication?.stop();
});

type Answer = { status: number; body: any; at: number };

/** One request with a bound: a request that gets no answer counts as status 0, like a 5xx. */
async function send(node: ClusterNode, key: string, path: string, idempotencyKey?: string): Promise<Answer> {
  try {
    const res = await fetch(node.url + path, {
      method: idempotencyKey === undefined ? 'GET' : 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey, 'content-type': 'application/json' }),
      },
      body: idempotencyKey === undefined ? undefined : '{}',
      signal: AbortSignal.timeout(5_000),
    });
    const text = await res.text();
    return { status: res.status, body: text === '' ? undefined : JSON.parse(text), at: performance.now() };
  } catch {
    return { status: 0, body: undefined, at: performance.now() };
  }
}

test('a PostgreSQL failover with synchronous replication: both nodes serve again within 10 s, /readyz tells, nothing acknowledged is lost or rings twice', {
  skip,
  timeout: 120_000,
}, async () => {
  replication = await startReplication();
  await replication.synchronous();
  proxy = await startTcpProxy(replication.primary.port);
  cluster = await startCluster(2, {
    DATABASE_URL: `postgres://postgres@127.0.0.1:${proxy.port}/postgres`,
    RATE_LIMIT_WRITES_BURST: '100000',
    RATE_LIMIT_READS_BURST: '100000',
    LOG_LEVEL: 'fatal',
  });
  const nodes = cluster.nodes;
  const branchId = (await cluster.cli('demo')).branch.id as string;
  const key = (await cluster.cli('keys', 'create', '--branch', branchId, '--mode', 'test')).key as string;

  // Each client creates a ticket and readies it, on alternate nodes, retrying each with its key
  // until it is acknowledged: what a POS does.
  let running = true;
  const created = new Set<string>();
  const readied = new Set<string>();
  const successes: Array<{ node: string; at: number }> = [];
  const refused: Record<string, number> = {};
  const untilAcknowledged = async (n: number, path: string, idempotencyKey: string, ok: number): Promise<Answer | null> => {
    for (let attempt = 0; running || attempt === 0; attempt++) {
      const node = nodes[(n + attempt) % nodes.length]!;
      const res = await send(node, key, path, idempotencyKey);
      if (res.status === ok) {
        successes.push({ node: node.name, at: res.at });
        return res;
      }
      refused[res.status] = (refused[res.status] ?? 0) + 1;
      assert.ok(
        res.status === 0 || res.status === 409 || res.status === 429 || res.status >= 500,
        `${path}: ${res.status} ${JSON.stringify(res.body)}`,
      );
      await sleep(100);
    }
    return null;
  };
  const client = async (i: number) => {
    for (let n = i; running; n += CLIENTS) {
      const made = await untilAcknowledged(n, '/v1/tickets', `create-${i}-${n}`, 201);
      if (made === null) return;
      created.add(made.body.id);
      const ready = await untilAcknowledged(n + 1, `/v1/tickets/${made.body.id}/ready`, `ready-${i}-${n}`, 200);
      if (ready !== null) readied.add(made.body.id);
    }
  };
  const load = Array.from({ length: CLIENTS }, (_, i) => client(i));

  await sleep(BEFORE_MS);
  const before = created.size;
  await replication.crashPrimary();
  await sleep(OUTAGE_MS);
  await replication.promote();
  proxy.repoint(replication.standby.port);
  const promotedAt = performance.now();
  // Until each node has acknowledged something after the promotion, then a little more.
  const recovered = async (): Promise<Record<string, number>> => {
    const deadline = promotedAt + RECOVERY_BOUND_MS + 5_000;
    for (;;) {
      const first = Object.fromEntries(
        nodes.map((node) => [node.name, successes.find((s) => s.node === node.name && s.at > promotedAt)?.at ?? Number.NaN]),
      );
      if (Object.values(first).every((at) => !Number.isNaN(at)) || performance.now() > deadline) return first;
      await sleep(100);
    }
  };
  const firstAfter = await recovered();
  await sleep(1_000);
  running = false;
  await Promise.all(load);

  const recoveryMs = Object.fromEntries(Object.entries(firstAfter).map(([node, at]) => [node, Math.round(at - promotedAt)]));
  console.log(
    `# failover: ${before} tickets before the crash, ${created.size} created and ${readied.size} readied in all; first answer after the promotion (ms): ${JSON.stringify(recoveryMs)}; answers retried, by status: ${JSON.stringify(refused)}`,
  );
  for (const [node, ms] of Object.entries(recoveryMs))
    assert.ok(ms <= RECOVERY_BOUND_MS, `${node} served again ${ms} ms after the promotion (bound ${RECOVERY_BOUND_MS} ms)`);
  assert.ok(before > 0 && created.size > before, 'tickets were created before and after the failover');

  // On the new primary: every acknowledged create and ready, and one ring per ready.
  const db = new pg.Client({ connectionString: replication.standby.url() });
  await db.connect();
  try {
    const rows = (
      await db.query<{ id: string; status: string; rings: string }>(
        'SELECT t.id, t.status, (SELECT COUNT(*) FROM rings r WHERE r.ticket_id = t.id) AS rings FROM tickets t WHERE t.id = ANY($1)',
        [[...created]],
      )
    ).rows;
    const found = new Map(rows.map((r) => [r.id, r]));
    assert.deepEqual(
      [...created].filter((id) => !found.has(id)),
      [],
      'acknowledged creates missing on the new primary',
    );
    assert.deepEqual(
      [...readied].filter((id) => found.get(id)?.status !== 'ready'),
      [],
      'acknowledged readies not ready on the new primary',
    );
    const twice = (await db.query('SELECT ticket_id, COUNT(*) AS n FROM rings GROUP BY ticket_id HAVING COUNT(*) > 1')).rows;
    assert.deepEqual(twice, [], 'no ticket rang twice');
    assert.deepEqual(
      [...readied].filter((id) => Number(found.get(id)?.rings) !== 1),
      [],
      'every acknowledged ready rang once',
    );
  } finally {
    await db.end();
  }

  // Each node's /readyz: ready, and what happened meanwhile.
  for (const node of nodes) {
    const res = await send(node, key, '/readyz');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const history = res.body.store_history;
    assert.ok(history?.outages?.length >= 1, `${node.name} /readyz names the outage: ${JSON.stringify(res.body)}`);
    const last = history.outages.at(-1);
    assert.ok(last.from !== undefined && last.to !== null, `${node.name}: the outage ended: ${JSON.stringify(history)}`);
    assert.equal(history.server?.role, 'primary', `${node.name}: ${JSON.stringify(history)}`);
    assert.ok(
      history.server?.changed_at !== null,
      `${node.name} /readyz says the server behind the address changed: ${JSON.stringify(history)}`,
    );
  }
});
