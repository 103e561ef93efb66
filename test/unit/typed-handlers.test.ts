// Route handlers read the request as the TypeBox type provider types it from the route's schema
// (src/http/operation.ts: `typed`, `operation`, `hidden`). A cast of `req.body`, `req.query` or
// `req.params` would restate those types by hand, and could drift from what the schema
// validates: none may be left in src/http/routes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROUTES = path.resolve(import.meta.dirname, '../../src/http/routes');
const REQUEST_PARTS = new Set(['body', 'query', 'params']);

/** The casts (`x as T`, `<T>x`) in a source text whose operand reads a request part. */
function requestCasts(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const readsRequest = (node: ts.Node): boolean => {
    // `req.body`, `request.params.id`, `(req.body ?? {})`, and a helper's `params` argument alike.
    if (ts.isPropertyAccessExpression(node) && REQUEST_PARTS.has(node.name.text)) return true;
    if (ts.isIdentifier(node) && REQUEST_PARTS.has(node.text)) return true;
    return ts.forEachChild(node, (child) => readsRequest(child) || undefined) ?? false;
  };
  const visit = (node: ts.Node): void => {
    const cast = ts.isAsExpression(node) || ts.isTypeAssertionExpression(node);
    const asConst = ts.isAsExpression(node) && ts.isTypeReferenceNode(node.type) && node.type.typeName.getText(source) === 'const';
    if (cast && !asConst && readsRequest(node.expression)) {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
      found.push(`${fileName}:${line + 1}: ${node.getText(source)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

test('the check finds the casts it forbids', () => {
  const sample = [
    'const body = req.body as { name: string };',
    'const body2 = (req.body ?? {}) as { name?: string };',
    'const id = (request.params as { id: string }).id;',
    'const q = <{ limit?: number }>req.query;',
    'const code = req.params.code as ErrorCode;',
    'function id(params: unknown) { return (params as { id: string }).id; }',
    'const fine = [1, 2] as const;',
    'const headers = reply.getHeaders() as Record<string, string>;',
  ].join('\n');
  assert.deepEqual(
    requestCasts('sample.ts', sample).map((f) => f.split(':')[1]),
    ['1', '2', '3', '4', '5', '6'],
  );
});

test('no route handler casts req.body, req.query or req.params', () => {
  const files = readdirSync(ROUTES, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
  assert.ok(files.length >= 20, `only ${files.length} route files found under ${ROUTES}`);
  const casts = files.flatMap((f) => requestCasts(path.join('src/http/routes', f), readFileSync(path.join(ROUTES, f), 'utf8')));
  assert.deepEqual(casts, [], "type the request through the route's schema (operation() or hidden()) instead");
});
