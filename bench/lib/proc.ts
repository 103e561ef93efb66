// Child processes for the servers under test. Their output is kept (a bounded tail) rather than
// inherited so a failed start can be reported with the server's own words, and the bench's
// table is not interleaved with server logs.
import { spawn, type ChildProcess } from 'node:child_process';

export class HarnessError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HarnessError';
  }
}

export type Child = {
  readonly name: string;
  readonly proc: ChildProcess;
  exited: boolean;
  exitCode: number | null;
  exitSignal: NodeJS.Signals | null;
  output(): string;
  waitExit(): Promise<void>;
};

const TAIL_BYTES = 16 * 1024;

// So an interrupted bench does not leave servers holding ports and data directories.
const live = new Set<ChildProcess>();
export function killLiveChildren(): void {
  for (const p of live) p.kill('SIGKILL');
}

export function startChild(name: string, args: string[], env: Record<string, string>, cwd: string): Child {
  const proc = spawn(process.execPath, args, {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(proc);
  let tail = '';
  const keep = (chunk: Buffer): void => {
    tail += chunk.toString('utf8');
    if (tail.length > TAIL_BYTES) tail = tail.slice(-TAIL_BYTES);
  };
  proc.stdout?.on('data', keep);
  proc.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const child: Child = {
    name,
    proc,
    exited: false,
    exitCode: null,
    exitSignal: null,
    output: () => tail.trim(),
    waitExit: () => exited,
  };
  proc.once('exit', (code, signal) => {
    live.delete(proc);
    child.exited = true;
    child.exitCode = code;
    child.exitSignal = signal;
  });
  proc.once('error', (err) => keep(Buffer.from(`spawn error: ${err.message}\n`)));
  return child;
}

/** Polls `probe` until it resolves true; fails early, with the child's output, if the child dies. */
export async function waitReady(child: Child, probe: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exited) {
      throw new HarnessError(
        `${child.name} exited (code ${child.exitCode}, signal ${child.exitSignal}) before it was ready:\n${indent(child.output())}`,
      );
    }
    if (await probe().catch(() => false)) return;
    await sleep(100);
  }
  child.proc.kill('SIGKILL');
  throw new HarnessError(`${child.name} was not ready after ${timeoutMs / 1000} s:\n${indent(child.output())}`);
}

/**
 * SIGTERM and wait; a server that will not stop in time is killed and reported, not waited on
 * forever. Graceful means exit code 0: dying of the signal itself means there was no handler.
 */
export async function stopChild(child: Child, timeoutMs = 20_000): Promise<{ graceful: boolean }> {
  if (child.exited) return { graceful: child.exitCode === 0 };
  child.proc.kill('SIGTERM');
  const timedOut = await Promise.race([child.waitExit().then(() => false), sleep(timeoutMs).then(() => true)]);
  if (timedOut) {
    child.proc.kill('SIGKILL');
    await child.waitExit();
    return { graceful: false };
  }
  return { graceful: child.exitCode === 0 };
}

/** Runs a short command to completion and returns its stdout. */
export async function runToEnd(
  name: string,
  args: string[],
  env: Record<string, string>,
  cwd: string,
  timeoutMs = 60_000,
): Promise<string> {
  const proc = spawn(process.execPath, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(proc);
  proc.once('exit', () => live.delete(proc));
  let out = '';
  let err = '';
  proc.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
  proc.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
  const timer = setTimeout(() => proc.kill('SIGKILL'), timeoutMs);
  const code = await new Promise<number | null>((resolve) => {
    proc.once('error', (e) => {
      err += `spawn error: ${e.message}\n`;
      resolve(-1);
    });
    proc.once('exit', (c) => resolve(c));
  });
  clearTimeout(timer);
  if (code !== 0) throw new HarnessError(`${name} failed (exit ${code}):\n${indent((err + out).trim().slice(-TAIL_BYTES))}`);
  return out;
}

export { freePort } from '../../test/helpers/free-port.ts';

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export const indent = (s: string): string =>
  s === ''
    ? '    (no output)'
    : s
        .split('\n')
        .map((l) => `    ${l}`)
        .join('\n');
