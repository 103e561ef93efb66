// A scenario is one function that returns table rows. Adding a benchmark (SSE ring latency,
// webhook delivery, …) means writing one file here and listing it in scenarios/index.ts.
import type { Readybell } from '../lib/readybell.ts';

export type BenchOptions = {
  repoRoot: string;
  /** seconds per measured run */
  duration: number;
  connections: number;
  /** seconds of unmeasured load before each measured run, so the JIT has settled */
  warmup: number;
  cpuProfDir: string | null;
  /** tickets to pre-create for the ready run; null: sized from the measured create rate */
  readyTickets: number | null;
};

export type Row = {
  scenario: string;
  /** 'embedded' | 'postgres' | '—' for runs that use no store */
  store: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** the server process's CPU per completed request (µs), when measured */
  cpuUs?: number | null;
  /** PostgreSQL's CPU per completed request (µs), when measured */
  dbCpuUs?: number | null;
  /** what the errors were, or anything else a reader of the table must know */
  note?: string;
};

export type Report = {
  rows: Row[];
  /** lines printed under the table (durability results and the like) */
  notes: string[];
  /** harness failures: each one makes the bench exit non-zero */
  failures: string[];
  log(line: string): void;
};

/** Facts one scenario leaves for the next on the same store. */
export type Shared = {
  createRps?: number;
  /** ids of tickets that exist (in any state) */
  ticketIds?: string[];
};

export type StandaloneContext = { opts: BenchOptions; report: Report };

export type ReadybellContext = StandaloneContext & { server: Readybell; shared: Shared };

export type Scenario =
  | { name: string; kind: 'standalone'; run(ctx: StandaloneContext): Promise<Row[]> }
  | { name: string; kind: 'readybell'; run(ctx: ReadybellContext): Promise<Row[]> };
