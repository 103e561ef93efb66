// The shape of src as a graph of imports (docs/decisions/0027-shared-core-and-layers.md): no
// module imports itself through others, and the bottom layers point down only. Type-only imports
// count: a type that names a module above it ties the layers together as much as a call does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import madge from 'madge';

const ROOT = path.resolve(import.meta.dirname, '../..');

type Graph = Record<string, string[]>;

/** The top-level folder of a module under src ('(root)' for src/app.ts, src/config.ts, …). */
const layerOf = (module: string): string => (module.includes('/') ? module.slice(0, module.indexOf('/')) : '(root)');

/** What each bottom layer may import from src; the layers above are free of a rule here. */
const RULES: ReadonlyArray<{ layer: string; may: (target: string) => boolean; says: string }> = [
  { layer: 'core', may: (to) => to === 'core', says: 'src/core imports nothing in src outside core' },
  { layer: 'domain', may: (to) => to === 'core' || to === 'domain', says: 'src/domain imports only core and domain' },
  {
    layer: 'store',
    may: (to) => !['actions', 'http', 'channels', 'jobs', 'webhooks', 'realtime'].includes(to),
    says: 'src/store imports nothing from actions, http, channels, jobs, webhooks or realtime',
  },
];

/** Every import that breaks a rule, as `from -> to (rule)`. */
function layerViolations(graph: Graph): string[] {
  const found: string[] = [];
  for (const [from, imports] of Object.entries(graph)) {
    const rule = RULES.find((r) => r.layer === layerOf(from));
    if (rule === undefined) continue;
    for (const to of imports) {
      if (!rule.may(layerOf(to))) found.push(`${from} -> ${to} (${rule.says})`);
    }
  }
  return found.sort();
}

const graph = await madge(path.join(ROOT, 'src'), { fileExtensions: ['ts'], tsConfig: path.join(ROOT, 'tsconfig.json') });

test('the graph is complete: every import in src was resolved', () => {
  assert.deepEqual(graph.warnings().skipped, []);
  const modules = Object.keys(graph.obj());
  assert.ok(modules.includes('core/ctx.ts') && modules.includes('app.ts'), `${modules.length} modules read`);
});

test('no circular imports in src', () => {
  assert.deepEqual(
    graph.circular().map((c) => c.join(' -> ')),
    [],
  );
});

test('the bottom layers import only what is below them: core, then domain, then store', () => {
  assert.deepEqual(layerViolations(graph.obj()), []);
});

test('the layer rules catch an import that points up', () => {
  const upward: Graph = {
    'core/ctx.ts': ['core/db.ts', 'store/tickets.ts'],
    'domain/ring-policy.ts': ['core/ring.ts', 'channels/ringer.ts'],
    'store/rings.ts': ['domain/ids.ts', 'core/ring.ts', 'actions/ring-ticket.ts'],
    'actions/ring-ticket.ts': ['http/write.ts'],
    'app.ts': ['jobs/runner.ts'],
  };
  assert.deepEqual(layerViolations(upward), [
    'core/ctx.ts -> store/tickets.ts (src/core imports nothing in src outside core)',
    'domain/ring-policy.ts -> channels/ringer.ts (src/domain imports only core and domain)',
    'store/rings.ts -> actions/ring-ticket.ts (src/store imports nothing from actions, http, channels, jobs, webhooks or realtime)',
  ]);
});
