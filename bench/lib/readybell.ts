// readybell as a separate process on a fresh data directory, with the demo account's test key.
// Restartable on the same data, because the durability check needs a stop and a start.
import { freePort, HarnessError, runToEnd, startChild, stopChild, waitReady, type Child } from './proc.ts';
import type { StoreTarget } from './stores.ts';

export type Readybell = {
  readonly url: string;
  readonly key: string;
  readonly dataDir: string;
  readonly store: StoreTarget;
  start(): Promise<void>;
  stop(): Promise<{ graceful: boolean }>;
};

type LaunchOptions = { repoRoot: string; dataDir: string; store: StoreTarget; cpuProfDir: string | null };

// The configuration's ceiling for a burst; far more requests than one bench run sends.
const UNLIMITED = '10000000';

export async function launchReadybell(opts: LaunchOptions): Promise<Readybell> {
  const dataDir = opts.dataDir;
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env: Record<string, string> = {
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: url,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    // The bench measures the server, not the limiter's refusals: one key sends everything.
    RATE_LIMIT_WRITES_BURST: UNLIMITED,
    RATE_LIMIT_WRITES_PER_SECOND: UNLIMITED,
    RATE_LIMIT_READS_BURST: UNLIMITED,
    RATE_LIMIT_READS_PER_SECOND: UNLIMITED,
    ...opts.store.env,
  };

  const demoOut = await runToEnd('readybell demo', ['src/cli/main.ts', 'demo', '--json'], env, opts.repoRoot);
  const key = parseDemoKey(demoOut);

  const profArgs = opts.cpuProfDir === null ? [] : ['--cpu-prof', `--cpu-prof-dir=${opts.cpuProfDir}`];
  let child: Child | null = null;

  return {
    url,
    key,
    dataDir,
    store: opts.store,
    async start() {
      if (child !== null && !child.exited) return;
      child = startChild(`readybell serve (${opts.store.label})`, [...profArgs, 'src/cli/main.ts', 'serve'], env, opts.repoRoot);
      await waitReady(child, async () => (await fetch(`${url}/readyz`)).status === 200);
    },
    async stop() {
      if (child === null) return { graceful: true };
      const c = child;
      child = null;
      const result = await stopChild(c);
      if (!result.graceful)
        console.error(`warning: ${c.name} did not shut down cleanly (code ${c.exitCode}, signal ${c.exitSignal}):\n${c.output()}`);
      return result;
    },
  };
}

function parseDemoKey(out: string): string {
  // The JSON is the last line; anything before it is the CLI talking, which is fine.
  const line = out
    .trim()
    .split('\n')
    .reverse()
    .find((l) => l.trim().startsWith('{'));
  try {
    const demo = JSON.parse(line ?? '') as { keys?: { test?: unknown } };
    if (typeof demo.keys?.test === 'string' && demo.keys.test !== '') return demo.keys.test;
  } catch {
    // reported below with the output itself
  }
  throw new HarnessError(`readybell demo --json printed no keys.test:\n${out.slice(0, 2000)}`);
}
