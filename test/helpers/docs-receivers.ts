// The receivers docs/webhooks-verify.md shows, as files a test can run: each fenced block that
// follows a `<!-- tested: NAME -->` line is written out as NAME, byte for byte, so what the docs
// show is what the tests run.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { owned } from './child-processes.ts';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const DOC = path.resolve(import.meta.dirname, '../../docs/webhooks-verify.md');

/** Writes every tested block of the verification guide into `dir`; returns their names. */
export function writeDocumentedReceivers(dir: string): string[] {
  const names: string[] = [];
  for (const m of readFileSync(DOC, 'utf8').matchAll(/<!-- tested: (\S+) -->\n```\w*\n([\s\S]*?)```/g)) {
    writeFileSync(path.join(dir, m[1]!), m[2]!);
    names.push(m[1]!);
  }
  return names;
}

import { freePort } from './free-port.ts';

export { freePort };

export type ReceiverProcess = { url: string; output(): string; stop(): Promise<void> };

/** Starts a receiver with PORT and READYBELL_WEBHOOK_SECRET; resolves once it prints `listening`. */
export async function startReceiver(
  command: string,
  args: string[],
  cwd: string,
  secret: string,
  timeoutMs = 60_000,
): Promise<ReceiverProcess> {
  const port = await freePort();
  const child: ChildProcess = owned(
    spawn(command, args, {
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: String(port), READYBELL_WEBHOOK_SECRET: secret },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${command} ${args.join(' ')} did not start within ${timeoutMs} ms: ${stderr}`));
    }, timeoutMs);
    child.stdout!.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (stdout.includes('listening')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${command} ${args.join(' ')} exited (${code}) before listening: ${stderr}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}/hook`,
    output: () => stdout,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = once(child, 'exit');
      child.kill();
      await gone;
      assert.equal(stderr, '', `${command} wrote to stderr`);
    },
  };
}
