// Reads are verbs too (docs/decisions/0062-reads-are-verbs.md): a route validates, builds the ctx
// and calls a verb, for a read as for a write, so no module in src/http imports src/store, and
// every access rule is the verb's. And a file of src/actions holds what docs/architecture.md says
// it may: one resource's verbs, at most MAX_EXPORTS exported functions in MAX_LINES lines.
// Imports are read with madge as in module-graph.test.ts; type-only imports count.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import madge from 'madge';

const ROOT = path.resolve(import.meta.dirname, '../..');

type Graph = Record<string, string[]>;

/** Every import from src/http into src/store, as `from -> to`. */
function httpReadsStore(graph: Graph): string[] {
  const found: string[] = [];
  for (const [from, imports] of Object.entries(graph)) {
    if (!from.startsWith('http/')) continue;
    for (const to of imports) if (to.startsWith('store/')) found.push(`${from} -> ${to}`);
  }
  return found.sort();
}

const graph = await madge(path.join(ROOT, 'src'), { fileExtensions: ['ts'], tsConfig: path.join(ROOT, 'tsconfig.json') });

test('no module in src/http imports src/store: routes and plugins read through verbs', () => {
  assert.deepEqual(graph.warnings().skipped, []);
  assert.ok(
    Object.keys(graph.obj()).some((m) => m.startsWith('http/routes/')),
    'the routes were read',
  );
  assert.deepEqual(httpReadsStore(graph.obj()), []);
});

test('the rule catches a route or a plugin that reads the store', () => {
  const made: Graph = {
    'http/routes/v1/tickets.ts': ['actions/read-tickets.ts', 'store/tickets.ts', 'core/ctx.ts'],
    'http/plugins/auth.ts': ['actions/api-key-auth.ts', 'store/credentials.ts'],
    'http/write.ts': ['store/idempotency.ts'],
    'actions/read-tickets.ts': ['store/tickets.ts'],
    'app.ts': ['store/open-db.ts', 'http/server.ts'],
  };
  assert.deepEqual(httpReadsStore(made), [
    'http/plugins/auth.ts -> store/credentials.ts',
    'http/routes/v1/tickets.ts -> store/tickets.ts',
    'http/write.ts -> store/idempotency.ts',
  ]);
});

/** What a file of src/actions may hold (docs/architecture.md, "actions/"). */
const MAX_EXPORTS = 6;
const MAX_LINES = 200;

/** The functions a module exports: `export (async) function f`, and `export const f` bound to a function or typed as a verb. */
const EXPORTED_FUNCTION =
  /^export\s+(?:async\s+)?function\s+(\w+)|^export\s+const\s+(\w+)\s*(?::\s*(?:Action|Read)<[^=]*)?=\s*(?:async\s+)?(?:\([^)]*\)|\w+)\s*(?::[^=]*)?=>|^export\s+const\s+(\w+)\s*:\s*(?:Action|Read)</gm;

function exportedFunctions(source: string): string[] {
  return [...source.matchAll(EXPORTED_FUNCTION)].map((m) => m[1] ?? m[2] ?? m[3]!);
}

/** Each file of src/actions that holds more than the rule allows, with what it holds. */
function oversizedActionFiles(files: ReadonlyArray<{ name: string; source: string }>): string[] {
  const found: string[] = [];
  for (const { name, source } of files) {
    const exported = exportedFunctions(source);
    const lines = source.split('\n').length;
    if (exported.length > MAX_EXPORTS) found.push(`${name}: ${exported.length} exported functions (${exported.join(', ')})`);
    if (lines > MAX_LINES) found.push(`${name}: ${lines} lines`);
  }
  return found;
}

test(`a file of src/actions holds at most ${MAX_EXPORTS} exported functions in ${MAX_LINES} lines`, () => {
  const dir = path.join(ROOT, 'src/actions');
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .map((name) => ({ name, source: readFileSync(path.join(dir, name), 'utf8') }));
  assert.ok(files.length > 10, `${files.length} files read`);
  assert.deepEqual(oversizedActionFiles(files), []);
});

test('the file rule counts every kind of exported function, and catches a file that holds too much', () => {
  const verbs = [
    'export const listA: Read<void, A[]> = async ({ ctx }) => list(ctx);',
    'export const createA: Action<{ name: string }, A> = async ({ ctx, input }) => {',
    'export async function readA(ctx: Ctx): Promise<A> {',
    'export function requireA(ctx: Ctx): void {',
    'export const findA = (services: Services, token: string): Promise<A | undefined> => find(services.db, token);',
    'export const removeA: Action<{ id: string }, A> = ({ ctx, input }) => remove(ctx, input.id);',
    'export const updateA: Action<',
  ];
  const others = ['export const MAX_A = 16;', 'export type A = { id: string };', 'const helper = async () => 1;'];
  assert.deepEqual(exportedFunctions([...verbs, ...others].join('\n')), [
    'listA',
    'createA',
    'readA',
    'requireA',
    'findA',
    'removeA',
    'updateA',
  ]);
  assert.deepEqual(
    oversizedActionFiles([
      { name: 'a.ts', source: verbs.join('\n') },
      { name: 'b.ts', source: verbs.slice(0, 6).join('\n') },
      { name: 'c.ts', source: 'x\n'.repeat(MAX_LINES) },
    ]),
    ['a.ts: 7 exported functions (listA, createA, readA, requireA, findA, removeA, updateA)', `c.ts: ${MAX_LINES + 1} lines`],
  );
});
