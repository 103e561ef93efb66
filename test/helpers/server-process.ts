// A real `readybell serve` process (HTTP and background jobs) on the store of a test app, so a
// test can kill it outright (SIGKILL: no shutdown, nothing flushed) and start another in its place,
// as a crash and a restart do. The test app stays the observer: same store, no workers of its own.
import { spawn, type ChildProcess } from 'node:child_process';
import { nodeEnv, owned } from './child-processes.ts';
import { once } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestApp } from './app.ts';
import { freePort } from './free-port.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export type ServerProcess = { url: string; child: ChildProcess; kill(signal?: NodeJS.Signals): Promise<void> };

/** `onLog` gets the process's log lines (its stdout), for a test that reads them; else they are dropped. */
export async function startServerProcess(
  t: TestApp,
  env: Record<string, string> = {},
  onLog?: (line: string) => void,
): Promise<ServerProcess> {
  const { databaseUrl, dataDir, redisUrl, redisPrefix, publicUrl } = t.app.services.config;
  const store: Record<string, string> = databaseUrl !== null ? { DATABASE_URL: databaseUrl } : { DATA_DIR: dataDir };
  if (redisUrl !== null) Object.assign(store, { REDIS_URL: redisUrl, REDIS_KEY_PREFIX: redisPrefix });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = owned(
    spawn(process.execPath, ['src/cli/main.ts', 'serve'], {
      cwd: root,
      // The test app's PUBLIC_URL, so links (and push payloads) match what the test app shows.
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', ...nodeEnv(), ...store, ...env, PORT: String(port), PUBLIC_URL: publicUrl },
      stdio: ['ignore', onLog === undefined ? 'ignore' : 'pipe', 'inherit'],
    }),
  );
  if (onLog !== undefined) {
    let partial = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop()!;
      for (const line of lines) if (line !== '') onLog(line);
    });
  }
  const exited = (): boolean => child.exitCode !== null || child.signalCode !== null;
  for (let i = 0; ; i++) {
    if (exited()) throw new Error(`readybell serve exited (${child.exitCode ?? child.signalCode}) before it was ready`);
    if (i === 400) {
      // Not ready: stop it here, since the caller never gets a handle to stop it with.
      child.kill('SIGKILL');
      throw new Error(`${url} was not ready within 20 s`);
    }
    if (
      await fetch(`${url}/readyz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    child,
    async kill(signal = 'SIGKILL') {
      if (exited()) return;
      const gone = once(child, 'exit');
      child.kill(signal);
      await gone;
    },
  };
}
