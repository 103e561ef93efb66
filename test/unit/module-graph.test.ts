// The shape of src as a graph of imports (docs/decisions/0027-shared-core-and-layers.md): every
// top-level part of src (each folder, and each top-level file) has its place in one order, and a
// module imports only its own part and the parts below it. No exceptions. So no module imports
// itself through others and no two parts import each other. Type-only imports count: a type that
// names a module above it ties the layers together as much as a call does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import madge from 'madge';

const ROOT = path.resolve(import.meta.dirname, '../..');

type Graph = Record<string, string[]>;

/**
 * The layers, bottom first (decision 0027 says what each holds and why it sits where it does).
 * A module may import from its own part and from any part listed before it.
 */
const LAYERS: readonly string[] = [
  'core',
  'domain',
  'i18n',
  'config.ts',
  'log.ts',
  'metrics.ts',
  'telemetry',
  'store',
  'runner',
  'realtime',
  'contract',
  'webhooks',
  'mail',
  'actions',
  'write',
  'channels',
  'ring',
  'jobs',
  'billing',
  'http',
  'connectors',
  'app.ts',
  'cli',
];

/** The top-level part of src a module is in: its folder, or the file itself (src/app.ts → 'app.ts'). */
const partOf = (module: string): string => (module.includes('/') ? module.slice(0, module.indexOf('/')) : module);

/** Every import that points up (or to a part with no place in the order), as `from -> to`. */
function upwardImports(graph: Graph, layers: readonly string[] = LAYERS): string[] {
  const found: string[] = [];
  for (const [from, imports] of Object.entries(graph)) {
    const own = layers.indexOf(partOf(from));
    for (const to of imports) {
      const target = layers.indexOf(partOf(to));
      if (partOf(to) === partOf(from)) continue;
      if (own < 0) found.push(`${from} -> ${to} (${partOf(from)} has no place in the order)`);
      else if (target < 0) found.push(`${from} -> ${to} (${partOf(to)} has no place in the order)`);
      else if (target > own) found.push(`${from} -> ${to} (${partOf(from)} is below ${partOf(to)})`);
    }
  }
  return found.sort();
}

/** The strongly connected groups of two or more top-level parts: parts that import one another, through others or not. */
function partCycles(graph: Graph): string[][] {
  const edges = new Map<string, Set<string>>();
  for (const [from, imports] of Object.entries(graph)) {
    const a = partOf(from);
    if (!edges.has(a)) edges.set(a, new Set());
    for (const to of imports) if (partOf(to) !== a) edges.get(a)!.add(partOf(to));
  }
  // Tarjan's algorithm, over a handful of parts.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const groups: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        group.push(w);
      } while (w !== v);
      if (group.length > 1) groups.push(group.sort());
    }
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return groups;
}

const graph = await madge(path.join(ROOT, 'src'), { fileExtensions: ['ts'], tsConfig: path.join(ROOT, 'tsconfig.json') });

test('the graph is complete: every import in src was resolved', () => {
  assert.deepEqual(graph.warnings().skipped, []);
  const modules = Object.keys(graph.obj());
  assert.ok(modules.includes('core/ctx.ts') && modules.includes('app.ts'), `${modules.length} modules read`);
});

test('every top-level part of src has its place in the order of layers', () => {
  const parts = [...new Set(Object.keys(graph.obj()).map(partOf))].sort();
  assert.deepEqual(
    parts.filter((p) => !LAYERS.includes(p)),
    [],
  );
  assert.deepEqual(
    LAYERS.filter((p) => !parts.includes(p)),
    [],
  );
});

test('no circular imports in src', () => {
  assert.deepEqual(
    graph.circular().map((c) => c.join(' -> ')),
    [],
  );
});

test('every layer imports only itself and the layers below it', () => {
  assert.deepEqual(upwardImports(graph.obj()), []);
});

test('no two top-level parts of src import each other, through others or not', () => {
  assert.deepEqual(partCycles(graph.obj()), []);
});

test('the layer rule catches an import that points up, or into a part with no place', () => {
  const upward: Graph = {
    'core/ctx.ts': ['core/db.ts', 'store/tickets.ts'],
    'domain/ring-policy.ts': ['core/ring.ts', 'channels/ringer.ts'],
    'store/rings.ts': ['domain/ids.ts', 'core/ring.ts', 'actions/ring-ticket.ts'],
    'actions/present.ts': ['contract/schemas.ts', 'http/schemas.ts'],
    'metrics.ts': ['domain/ids.ts', 'http/problems.ts'],
    'http/server.ts': ['actions/create-ticket.ts', 'wallet/pass.ts'],
    'cli/main.ts': ['app.ts', 'http/server.ts'],
  };
  assert.deepEqual(upwardImports(upward), [
    'actions/present.ts -> http/schemas.ts (actions is below http)',
    'core/ctx.ts -> store/tickets.ts (core is below store)',
    'domain/ring-policy.ts -> channels/ringer.ts (domain is below channels)',
    'http/server.ts -> wallet/pass.ts (wallet has no place in the order)',
    'metrics.ts -> http/problems.ts (metrics.ts is below http)',
    'store/rings.ts -> actions/ring-ticket.ts (store is below actions)',
  ]);
});

test('the cycle rule catches top-level parts that import each other through others', () => {
  const circle: Graph = {
    'store/outbox.ts': ['core/db.ts', 'telemetry/tracing.ts'],
    'telemetry/preload.ts': ['config.ts'],
    'config.ts': ['channels/channel-config.ts'],
    'channels/push.ts': ['store/tickets.ts'],
    'store/tickets.ts': [],
    'actions/ready.ts': ['ring/run.ts'],
    'ring/run.ts': ['actions/publish.ts'],
    'http/server.ts': ['actions/ready.ts'],
  };
  assert.deepEqual(
    partCycles(circle)
      .map((group) => group.join(','))
      .sort(),
    ['actions,ring', 'channels,config.ts,store,telemetry'],
  );
});
