// What a read costs as a store grows: the same requests asked of a small store and of a large one,
// in turn, request by request, so that both see the same load from whatever else runs on the
// machine. Measured one after the other, minutes apart, the same plan read up to 1.5 times the CPU
// on these shared 2-core machines. Used by the history and insights scenarios.
import os from 'node:os';
import path from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { HarnessError } from './proc.ts';
import { backendPids, threadsCpuNs } from './cpu.ts';
import { pidListeningOn } from './sse.ts';
import { embeddedTarget, postgresTarget, type StoreTarget } from './stores.ts';
import { launchReadybell, type Readybell } from './readybell.ts';
import type { ReadybellContext } from '../scenarios/types.ts';

/** Per request and store: stop after this many requests or this long, whichever comes first. */
const MAX_REQUESTS = 200;
const MAX_MS = 3_000;
const MIN_REQUESTS = 5;
const WARMUP_MS = 500;
/** How far the large store's CPU per request may be from the small one's. */
const TOLERANCE = 0.2;

export type Sample = { medianMs: number; cpuUs: number; requests: number; rows: number };
/** A request to a server whose node process is `nodePid`. */
type Request = { url: string; key: string; server: Readybell; nodePid: number };

/**
 * The processes serving a server's requests: its node and, on PostgreSQL, its database's
 * backends, which its pool opens as it needs them (so they are looked up after warming up).
 */
async function servingPids(r: Request): Promise<number[]> {
  const url = r.server.store.env['DATABASE_URL'];
  return url === undefined ? [r.nodePid] : [r.nodePid, ...(await backendPids(url))];
}

export function nodePidOf(server: Readybell): number {
  const pid = pidListeningOn(Number(new URL(server.url).port));
  if (pid === null) throw new HarnessError(`cannot find the readybell process on ${server.url}, whose CPU this scenario measures`);
  return pid;
}

async function storeLike(label: string, dataDir: string): Promise<StoreTarget> {
  if (label === 'embedded') return embeddedTarget(dataDir);
  const url = process.env['BENCH_DATABASE_URL'];
  if (url === undefined) throw new HarnessError('a second PostgreSQL store needs BENCH_DATABASE_URL');
  return postgresTarget(url);
}

/** What an answer holds: a list's rows, a CSV's lines, one for anything else (insights' figures). */
function rowsOf(text: string): number {
  if (!text.startsWith('{')) return text.split('\n').length;
  const data = (JSON.parse(text) as { data?: unknown[] }).data;
  return Array.isArray(data) ? data.length : 1;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * Sequential requests on one connection per server, the given ones taking turns: each one's wall
 * time and the CPU its servers spent on it.
 */
async function measureInTurn(requests: Request[], maxMs = MAX_MS): Promise<Sample[]> {
  const get = async (r: Request): Promise<number> => {
    const res = await fetch(r.url, { headers: { authorization: `Bearer ${r.key}` } });
    const text = await res.text();
    if (res.status !== 200) throw new HarnessError(`GET ${r.url} answered ${res.status}: ${text.slice(0, 300)}`);
    return rowsOf(text);
  };
  const rows: number[] = [];
  for (const r of requests) rows.push(await get(r), await get(r)); // the statement and its pages, warmed
  const pids = await Promise.all(requests.map(servingPids));
  const wall: number[][] = requests.map(() => []);
  const cpu: number[][] = requests.map(() => []);
  const start = performance.now();
  for (let n = 0; n < MAX_REQUESTS && (n < MIN_REQUESTS || performance.now() - start < maxMs); n++) {
    for (const [i, r] of requests.entries()) {
      const cpuNs = () => pids[i]!.reduce((sum, pid) => sum + threadsCpuNs(pid), 0);
      const c0 = cpuNs();
      const t0 = performance.now();
      await get(r);
      wall[i]!.push(performance.now() - t0);
      cpu[i]!.push((cpuNs() - c0) / 1000);
    }
  }
  return requests.map((_, i) => ({ medianMs: median(wall[i]!), cpuUs: median(cpu[i]!), requests: wall[i]!.length, rows: rows[2 * i]! }));
}

/** 10000 → "10k", 1000000 → "1M". */
export const shortCount = (n: number): string => (n >= 1_000_000 ? `${n / 1_000_000}M` : `${n / 1000}k`);

/** What a branch made for the comparison must give: the key to ask it with, and its server's node. */
type Branch = { key: string; nodePid: number };

export type ScaleComparison<B extends Branch, T extends { label: string }> = {
  /** The scenario, as its log lines name it. */
  scenario: string;
  /** How the small store's data directory is named. */
  tmpPrefix: string;
  small: number;
  large: number;
  /** The variable that sets `large`, named when it is not a whole number above `small`. */
  largeVar: string;
  /** A branch of `size` tickets in `server`'s store, as of `now`. */
  build: (server: Readybell, size: number, now: number) => Promise<B>;
  /** What the log says once a branch is built, in `seconds`. */
  built: (branch: B, size: number, seconds: number) => string;
  /** What is measured, one per table line, and the path that asks branch `b` for item `i`. */
  items: (small: B, now: number) => T[];
  pathOf: (item: T, b: B, i: number) => string;
  /** One item, in the log: "filter", "route". */
  noun: string;
  /** The table's first column's heading. */
  column: string;
  /** Whether the table shows the rows each answer holds. */
  rowsColumn: boolean;
  /** What the rows are, and why both stores must answer as many, when they do not. */
  mismatch: { unit: string; why: string };
  /** The note's first line, above the table. */
  intro: (branches: readonly [B, B]) => string;
  /** Whose CPU the goal line is about: "every filter's CPU". */
  goal: string;
};

/**
 * A branch of `small` tickets in a store of its own, with a readybell of its own, and one of
 * `large` in the server's store; each item asked of both in turn, after an unmeasured pass, both
 * answering as many rows. Adds a table of the medians and the large ÷ small ratios to the report's
 * notes, marking the CPU ratios outside ±TOLERANCE, and returns each item's samples: small, then large.
 */
export async function compareAtScale<B extends Branch, T extends { label: string }>(
  { opts, server, report }: ReadybellContext,
  c: ScaleComparison<B, T>,
): Promise<Array<readonly [Sample, Sample]>> {
  if (!Number.isInteger(c.large) || c.large <= c.small) throw new HarnessError(`${c.largeVar} must be a whole number above ${c.small}`);
  const label = server.store.label;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), c.tmpPrefix));
  let target: StoreTarget | null = null;
  let small: Readybell | null = null;
  try {
    target = await storeLike(label, dataDir);
    small = await launchReadybell({ repoRoot: opts.repoRoot, dataDir, store: target, cpuProfDir: opts.cpuProfDir });
    await small.start();
    const now = Date.now();
    const servers = [small, server] as const;
    const branches: B[] = [];
    for (const [j, size] of [c.small, c.large].entries()) {
      const t0 = performance.now();
      const branch = await c.build(servers[j]!, size, now);
      report.log(`${label}: ${c.scenario}, ${c.built(branch, size, (performance.now() - t0) / 1000)}`);
      branches.push(branch);
    }
    const items = c.items(branches[0]!, now);
    const turns = (i: number): Request[] =>
      branches.map((b, j) => ({
        url: `${servers[j]!.url}${c.pathOf(items[i]!, b, i)}`,
        key: b.key,
        server: servers[j]!,
        nodePid: b.nodePid,
      }));
    const samples = await measureBoth((line) => report.log(`${label}: ${c.scenario}, ${line}`), c, items, turns);
    report.notes.push(c.intro([branches[0]!, branches[1]!]), ...tableOf(label, c, items, samples));
    return samples;
  } finally {
    if (small !== null) await small.stop().catch(() => {});
    rmSync(dataDir, { recursive: true, force: true });
    if (target !== null) await target.cleanup();
  }
}

/** Each item on both stores in turn, after an unmeasured pass; both must answer as many rows. */
async function measureBoth<B extends Branch, T extends { label: string }>(
  log: (line: string) => void,
  c: ScaleComparison<B, T>,
  items: T[],
  turns: (i: number) => Request[],
): Promise<Array<readonly [Sample, Sample]>> {
  // An unmeasured pass first: the first items measured must not pay for the JIT's warm-up,
  // nor for reading the freshly written pages into the caches.
  for (const i of items.keys()) await measureInTurn(turns(i), WARMUP_MS);
  log(`every ${c.noun} on both stores in turn`);
  const samples: Array<readonly [Sample, Sample]> = [];
  for (const [i, item] of items.entries()) {
    const [a, b] = (await measureInTurn(turns(i))) as [Sample, Sample];
    if (a.rows !== b.rows)
      throw new HarnessError(`${item.label}: ${a.rows} ${c.mismatch.unit} at ${c.small} but ${b.rows} at ${c.large}; ${c.mismatch.why}`);
    samples.push([a, b] as const);
  }
  return samples;
}

/** The notes' lines under the intro: the table of medians and ratios, and whether the goal is met. */
function tableOf<B extends Branch, T extends { label: string }>(
  label: string,
  c: ScaleComparison<B, T>,
  items: T[],
  samples: Array<readonly [Sample, Sample]>,
): string[] {
  const [S, L] = [shortCount(c.small), shortCount(c.large)];
  const header = [
    c.column,
    ...(c.rowsColumn ? ['rows'] : []),
    `ms ${S}`,
    `ms ${L}`,
    `ms ${L}/${S}`,
    `CPU µs ${S}`,
    `CPU µs ${L}`,
    `CPU ${L}/${S}`,
    `requests ${L}`,
  ];
  let outside = 0;
  const body = items.map((item, i) => {
    const [a, b] = samples[i]!;
    const ratio = b.cpuUs / a.cpuUs;
    const within = Math.abs(ratio - 1) <= TOLERANCE;
    if (!within) outside += 1;
    return [
      item.label,
      ...(c.rowsColumn ? [String(a.rows)] : []),
      a.medianMs.toFixed(2),
      b.medianMs.toFixed(2),
      (b.medianMs / a.medianMs).toFixed(2),
      a.cpuUs.toFixed(0),
      b.cpuUs.toFixed(0),
      `${ratio.toFixed(2)}${within ? '' : ' *'}`,
      String(b.requests),
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((x, i) => (i === 0 ? x.padEnd(widths[i]!) : x.padStart(widths[i]!))).join('  ');
  return [
    `  Medians per request of the wall time and of the CPU the server spent (${label === 'postgres' ? 'the node and its PostgreSQL backends' : 'every thread of the node'}); * = CPU ratio outside ±${TOLERANCE * 100} %`,
    ...[line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].map((x) => `  ${x}`),
    `  ${outside === 0 ? '[ met ]' : '[MISSED]'} ${c.goal} at ${L} within ±${TOLERANCE * 100} % of its CPU at ${S} (${label}): ${outside} outside`,
    '',
  ];
}
