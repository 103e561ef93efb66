// Runs the `readybell` command as an operator does: its own process, configured only by the
// environment given (an operator's DATABASE_URL or PORT in this shell must not leak in).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { nodeEnv, owned } from './child-processes.ts';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const NODE = `${ROOT}node_modules/.bin/node`;

export type CliRun = { code: number | null; stdout: string; stderr: string };

/** The command's whole environment: the shell's PATH and HOME, and what the test gives. */
export function cliEnv(env: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'silent', ...nodeEnv(), ...env };
}

export function runCli(env: Record<string, string>, args: string[]): Promise<CliRun> {
  return runProcess(NODE, ['src/cli/main.ts', ...args], { cwd: ROOT, env: cliEnv(env) });
}

/** Runs any command to its end, collecting what it printed. */
export function runProcess(command: string, args: string[], opts: { cwd: string; env: Record<string, string> }): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = owned(spawn(command, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'] }));
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Runs a command with --json, which must succeed and print exactly one JSON line. */
export async function runCliJson(env: Record<string, string>, args: string[]): Promise<any> {
  const r = await runCli(env, [...args, '--json']);
  assert.equal(r.code, 0, `readybell ${args.join(' ')}: ${r.stderr}`);
  assert.equal(r.stdout.trim().split('\n').length, 1, 'one JSON line');
  return JSON.parse(r.stdout);
}
