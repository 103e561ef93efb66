// Reads the repository's Dockerfile and .dockerignore. These machines have no container engine, so
// the release smoke (scripts/release-smoke.ts) replays the Dockerfile's steps from what this
// returns, and test/unit/container-recipe.test.ts checks its invariants: what CI proves is then
// what the image does, not a copy of it that could drift. Only the plain subset the Dockerfile
// uses is understood; anything else is an error rather than a guess.
import { readFileSync } from 'node:fs';
import path from 'node:path';

export type Instruction = { keyword: string; args: string };
export type Stage = { image: string; name: string | null; instructions: Instruction[] };

export const ROOT = path.resolve(import.meta.dirname, '..');

/** The Dockerfile's build stages, in order, with line continuations joined and comments dropped. */
export function readDockerfile(file = path.join(ROOT, 'Dockerfile')): Stage[] {
  const lines = readFileSync(file, 'utf8').split('\n');
  const logical: string[] = [];
  let pending = '';
  for (const raw of lines) {
    const line = raw.trim();
    if (line.startsWith('#') || (line === '' && pending === '')) continue;
    if (line.endsWith('\\')) {
      pending += line.slice(0, -1).trim() + ' ';
      continue;
    }
    logical.push((pending + line).trim());
    pending = '';
  }
  if (pending !== '') throw new Error('Dockerfile: a line continuation runs past the end');

  const stages: Stage[] = [];
  for (const line of logical) {
    if (line === '') continue;
    const [keyword = '', ...rest] = line.split(/\s+/);
    const args = rest.join(' ');
    if (keyword.toUpperCase() === 'FROM') {
      const m = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args);
      if (m === null) throw new Error(`Dockerfile: cannot read "FROM ${args}"`);
      stages.push({ image: m[1]!, name: m[2] ?? null, instructions: [] });
      continue;
    }
    const stage = stages.at(-1);
    if (stage === undefined) throw new Error(`Dockerfile: ${keyword} before the first FROM`);
    stage.instructions.push({ keyword: keyword.toUpperCase(), args });
  }
  return stages;
}

/** The arguments of an exec-form (JSON array) CMD, or of the CMD after HEALTHCHECK's options. */
export function execForm(args: string): string[] {
  const json = args.slice(args.indexOf('['));
  const parsed: unknown = JSON.parse(json);
  if (!Array.isArray(parsed) || parsed.length === 0 || !parsed.every((a) => typeof a === 'string')) {
    throw new Error(`Dockerfile: expected an exec-form array of strings, got ${args}`);
  }
  return parsed as string[];
}

/** `ENV A=1 B=2` (unquoted values only). */
export function envPairs(args: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of args.split(/\s+/)) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=([^"'\s]*)$/.exec(pair);
    if (m === null) throw new Error(`Dockerfile: ENV takes NAME=value pairs without quotes, got "${pair}"`);
    out[m[1]!] = m[2]!;
  }
  return out;
}

/** `COPY [--from=S] [--chown=…] SRC… DEST`. */
export function copyArgs(args: string): { from: string | null; sources: string[]; dest: string } {
  const words = args.split(/\s+/);
  let from: string | null = null;
  while (words[0]?.startsWith('--')) {
    const flag = words.shift()!;
    if (flag.startsWith('--from=')) from = flag.slice('--from='.length);
    else if (!/^--(chown|chmod)=/.test(flag)) throw new Error(`Dockerfile: COPY ${flag} is not understood here`);
  }
  const dest = words.pop();
  if (dest === undefined || words.length === 0) throw new Error(`Dockerfile: COPY needs a source and a destination, got "${args}"`);
  return { from, sources: words, dest };
}

/**
 * The build context: .dockerignore is an allow-list (`*`, then one `!name` per top-level file or
 * folder the build needs), so what is sent is exactly what is named and never a stray `.env`,
 * `data/` or a host `node_modules`.
 */
export function readContext(file = path.join(ROOT, '.dockerignore')): string[] {
  const patterns = readFileSync(file, 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  if (patterns[0] !== '*') throw new Error('.dockerignore: the first pattern must be "*" (an allow-list)');
  return patterns.slice(1).map((p) => {
    if (!/^![A-Za-z0-9._-]+$/.test(p)) throw new Error(`.dockerignore: expected "!name" of a top-level file or folder, got "${p}"`);
    return p.slice(1);
  });
}
