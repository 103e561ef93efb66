// Several real `readybell serve` processes on one PostgreSQL database and one Redis, as a load
// balancer would see them: each test talks to nodes over HTTP and may kill one outright.
import { spawn, type ChildProcess } from 'node:child_process';
import { owned } from './child-processes.ts';
import { once } from 'node:events';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createTestStore, type TestStore } from './store.ts';
import type { Res } from './app.ts';
import { freePort } from './free-port.ts';

const run = promisify(execFile);
const NODE = process.execPath;

export type ClusterNode = {
  name: string;
  url: string;
  child: ChildProcess;
  request(method: string, path: string, opts?: { key?: string | null; body?: unknown; headers?: Record<string, string> }): Promise<Res>;
  kill(signal?: NodeJS.Signals): Promise<void>;
};

export type Cluster = { nodes: ClusterNode[]; env: Record<string, string>; cli(...args: string[]): Promise<any>; close(): Promise<void> };

/**
 * A bound for a node that never becomes ready, not a speed check: a node starts in about a second,
 * but 15 s ran out on a CI machine loaded with other suites (load average 25 on 2 cores).
 */
const READY_WITHIN_MS = 60_000;

async function waitReady(url: string, child: ChildProcess): Promise<void> {
  const until = Date.now() + READY_WITHIN_MS;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`node exited with ${child.exitCode} before it was ready`);
    try {
      if ((await fetch(`${url}/readyz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${url} was not ready within ${READY_WITHIN_MS / 1000} s`);
}

/** `extraEnv.REDIS_URL` points the nodes at a Redis of the test's own instead of TEST_REDIS_URL. */
export async function startCluster(count: number, extraEnv: Record<string, string> = {}): Promise<Cluster> {
  const redisUrl = extraEnv.REDIS_URL ?? process.env.TEST_REDIS_URL;
  if (redisUrl === undefined) throw new Error('a cluster needs TEST_REDIS_URL (or REDIS_URL in extraEnv)');
  const store: TestStore = await createTestStore();
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    ...store.env,
    REDIS_URL: redisUrl,
    LOG_LEVEL: 'warn',
    ...extraEnv,
  };
  const cli = async (...args: string[]): Promise<any> =>
    JSON.parse((await run(NODE, ['src/cli/main.ts', ...args, '--json'], { env })).stdout);
  await cli('migrate');
  const nodes: ClusterNode[] = [];
  for (let i = 0; i < count; i++) {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const child = owned(
      spawn(NODE, ['src/cli/main.ts', 'serve'], {
        env: { ...env, PORT: String(port), PUBLIC_URL: url },
        stdio: ['ignore', 'ignore', 'inherit'],
      }),
    );
    nodes.push({
      name: `node${i + 1}`,
      url,
      child,
      async request(method, path, o = {}) {
        const headers: Record<string, string> = { ...o.headers };
        if (o.key) headers.authorization = `Bearer ${o.key}`;
        let body: string | undefined;
        if (o.body !== undefined) {
          body = JSON.stringify(o.body);
          headers['content-type'] = 'application/json';
        }
        const res = await fetch(url + path, { method, headers, body });
        const text = await res.text();
        let parsed: unknown;
        try {
          parsed = text === '' ? undefined : JSON.parse(text);
        } catch {
          parsed = undefined;
        }
        return { status: res.status, headers: res.headers, text, body: parsed };
      },
      async kill(signal = 'SIGKILL') {
        if (child.exitCode !== null || child.signalCode !== null) return;
        child.kill(signal);
        await once(child, 'exit');
      },
    });
  }
  try {
    await Promise.all(nodes.map((n) => waitReady(n.url, n.child)));
  } catch (e) {
    // A cluster that did not start stops what it started: the test's `after` never sees it.
    await Promise.all(nodes.map((n) => n.kill('SIGKILL')));
    await store.drop();
    throw e;
  }
  return {
    nodes,
    env,
    cli,
    async close() {
      await Promise.all(nodes.map((n) => n.kill('SIGTERM')));
      await store.drop();
    },
  };
}
