// The release's size on disk (issue 36 item 12, decision 0077): what scripts/release.sh writes —
// the sources, the browser files and their builds, and the production dependencies — counted as
// `du` counts it (each file in whole 4 KiB blocks, each folder a block: some 30,000 small files
// make a release far bigger on disk than in bytes). The dependencies are the closure of
// package.json's `dependencies` as installed here, plus the packages other work is making runtime
// dependencies (Stripe, nodemailer, Shopify's Admin API client), so the budget holds with them.
// A release with everything stays within 120 MiB; a lean one (no tracing, decision 0070) within 80.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { TRACING_PACKAGES } from '../../src/telemetry/sdk.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const BLOCK = 4096;
const MiB = 1024 * 1024;
const FULL_BUDGET = 120 * MiB;
const LEAN_BUDGET = 80 * MiB;
/** Runtime dependencies to come (billing: stripe; mail: nodemailer; Shopify: its Admin API client). */
const COMING = ['stripe', 'nodemailer', '@shopify/admin-api-client'];

type Pkg = {
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
};
const readPkg = (dir: string): Pkg => JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as Pkg;

/** The suffixes scripts/release.sh removes from the installed dependencies (its PRUNED). */
const PRUNED = (/^PRUNED="([^"]*)"$/m.exec(readFileSync(path.join(ROOT, 'scripts/release.sh'), 'utf8'))?.[1] ?? '')
  .split(' ')
  .filter((x) => x !== '');
const pruned = (file: string): boolean => PRUNED.some((suffix) => file.toLowerCase().endsWith(suffix));

/**
 * Space on disk of a file or folder, as du counts it. In a package: without its own node_modules
 * (its nested packages count when reached) and without the files the release prunes.
 */
function diskUse(p: string, inPackage = false): number {
  const st = lstatSync(p);
  if (!st.isDirectory()) return inPackage && pruned(p) ? 0 : Math.ceil(st.size / BLOCK) * BLOCK;
  let n = BLOCK;
  for (const name of readdirSync(p)) if (!(inPackage && name === 'node_modules')) n += diskUse(path.join(p, name), inPackage);
  return n;
}

/** Where Node finds package `name` from `dir`: the nearest node_modules above it that has it. */
function resolvePackage(name: string, dir: string): string | null {
  for (let d = dir; d.startsWith(ROOT); d = path.dirname(d)) {
    const candidate = path.join(d, 'node_modules', name);
    if (existsSync(path.join(candidate, 'package.json'))) return candidate;
    if (d === ROOT) break;
  }
  return null;
}

/** The installed folders of `roots` and everything they depend on. */
function closure(roots: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const visit = (name: string, from: string, optional: boolean): void => {
    const dir = resolvePackage(name, from);
    if (dir === null) {
      assert.ok(optional, `${name} (needed from ${path.relative(ROOT, from) || '.'}) is not installed`);
      return;
    }
    if (seen.has(dir)) return;
    seen.add(dir);
    const pkg = readPkg(dir);
    for (const dep of Object.keys(pkg.dependencies ?? {})) visit(dep, dir, false);
    for (const dep of Object.keys(pkg.optionalDependencies ?? {})) visit(dep, dir, true);
    for (const dep of Object.keys(pkg.peerDependencies ?? {})) visit(dep, dir, pkg.peerDependenciesMeta?.[dep]?.optional === true);
  };
  for (const r of roots) visit(r, ROOT, false);
  return seen;
}

/** What the release copies and builds besides its dependencies (scripts/release.sh). */
function ownFiles(): number {
  const web = ['web/icon.svg', 'web/push', 'web/customer/customer.css', 'web/customer/sw.js', 'web/board/board.css'];
  assert.ok(existsSync(path.join(ROOT, 'dist/web/staff')), 'build the pages first (npm run build:web)');
  return ['bin', 'src', 'dist/web', 'package-lock.json', 'package.json', ...web].reduce((n, p) => n + diskUse(path.join(ROOT, p)), 0);
}

function releaseSize(lean: boolean): { bytes: number; packages: number } {
  const declared = Object.keys(readPkg(ROOT).dependencies ?? {});
  const roots = [...new Set([...declared, ...COMING])].filter((n) => !(lean && TRACING_PACKAGES.includes(n)));
  const dirs = closure(roots);
  let bytes = ownFiles();
  for (const dir of dirs) bytes += diskUse(dir, true);
  return { bytes, packages: dirs.size };
}

const mib = (n: number): string => `${(n / MiB).toFixed(1)} MiB`;

test('the release prunes type declarations, sources, maps and Markdown from its dependencies, and nothing a service runs', () => {
  assert.deepEqual(PRUNED, ['.ts', '.mts', '.cts', '.map', '.md', '.markdown']);
  for (const kept of ['index.js', 'index.mjs', 'package.json', 'LICENSE', 'data.json']) assert.equal(pruned(`x/${kept}`), false, kept);
});

test('a release with everything fits in 120 MiB on disk, and a lean one in 80 MiB', () => {
  const full = releaseSize(false);
  const lean = releaseSize(true);
  console.log(`release ${mib(full.bytes)} (${full.packages} packages), lean ${mib(lean.bytes)} (${lean.packages} packages)`);
  assert.ok(full.bytes <= FULL_BUDGET, `a release takes ${mib(full.bytes)}, over ${mib(FULL_BUDGET)}`);
  assert.ok(lean.bytes <= LEAN_BUDGET, `a lean release takes ${mib(lean.bytes)}, over ${mib(LEAN_BUDGET)}`);
});

test('the Square connector ships no SDK: its calls are a typed client on fetch', () => {
  const declared = Object.keys(readPkg(ROOT).dependencies ?? {});
  assert.deepEqual(
    declared.filter((n) => n === 'square' || n === 'square-legacy'),
    [],
  );
});

test('`npm run release -- --help` prints the usage and makes nothing', () => {
  const cwd = mkdtempSync(path.join(tmpdir(), 'release-help-'));
  try {
    for (const args of [['--help'], ['-h']]) {
      const run = spawnSync('bash', [path.join(ROOT, 'scripts/release.sh'), ...args], { cwd, encoding: 'utf8' });
      assert.equal(run.status, 0, run.stderr);
      assert.match(run.stdout, /^usage: scripts\/release\.sh \[--lean\] OUT/);
    }
    const wrong = spawnSync('bash', [path.join(ROOT, 'scripts/release.sh'), '--version'], { cwd, encoding: 'utf8' });
    assert.equal(wrong.status, 2, 'an unknown option is refused');
    assert.deepEqual(readdirSync(cwd), [], 'no folder is made');
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
});
