// A connector is declared once, in its own folder, and listed once (src/connectors/installed.ts):
// nothing else in src keeps a list that names it (decision 0076, issue 33 item 7). A list is an
// array literal or a union type; naming is a string that is the connector's name or an identifier
// that contains it (`'square'`, `SquareConnectionSchema`, `registerSquareJobs`). Square's own
// store, contract and configuration modules may exist beside the other layers' files; what they
// may not be is an entry in someone else's list.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { CONNECTORS } from '../../src/connectors/installed.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** The installed connectors, and the ones planned (issue 33 item 5). */
const NAMES = [...new Set([...CONNECTORS.map((c) => c.name), 'shopify'])];
const THE_LIST = 'src/connectors/installed.ts';

/** Where a list in `source` names one of `names`: `file:line: text` for each entry. */
export function namedInLists(file: string, source: string, names: readonly string[]): string[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const lower = names.map((n) => n.toLowerCase());
  const mentions = (text: string): boolean => lower.some((n) => text.toLowerCase().includes(n));
  const entry = (node: ts.Node): void => {
    const target = ts.isSpreadElement(node) ? node.expression : node;
    const text =
      ts.isStringLiteralLike(target) && lower.includes(target.text.toLowerCase())
        ? target.text
        : ts.isIdentifier(target) || ts.isPropertyAccessExpression(target) || ts.isCallExpression(target)
          ? mentions(target.getText(sf))
            ? target.getText(sf)
            : null
          : ts.isLiteralTypeNode(target) && ts.isStringLiteral(target.literal) && lower.includes(target.literal.text.toLowerCase())
            ? target.literal.text
            : null;
    if (text !== null) found.push(`${file}:${sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1}: ${text}`);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isArrayLiteralExpression(node)) node.elements.forEach(entry);
    else if (ts.isUnionTypeNode(node)) node.types.forEach(entry);
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

function sourceFiles(): string[] {
  return readdirSync(path.join(ROOT, 'src'), { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.ts$/.test(f))
    .map((f) => path.join('src', f));
}

test('no list outside a connector’s own folder names it; the one list of installed connectors does', () => {
  const found = sourceFiles()
    .filter((f) => f !== THE_LIST && !NAMES.some((n) => f.startsWith(`src/connectors/${n}/`)))
    .flatMap((f) => namedInLists(f, readFileSync(path.join(ROOT, f), 'utf8'), NAMES));
  assert.deepEqual(found, []);
  assert.ok(namedInLists(THE_LIST, readFileSync(path.join(ROOT, THE_LIST), 'utf8'), NAMES).length >= CONNECTORS.length);
});

test('the rule catches a connector named in an array, a union or a spread', () => {
  const sample = [
    "const CHANNELS = ['sms', 'square'];",
    "type Scope = 'api' | 'shopify';",
    'const all = [...squareJobs, registerShopifyRoutes(app)];',
    "const fine = ['sms', 'push']; const square = 1; type T = 'a' | 'b';",
  ].join('\n');
  assert.deepEqual(namedInLists('sample.ts', sample, ['square', 'shopify']), [
    'sample.ts:1: square',
    'sample.ts:2: shopify',
    'sample.ts:3: squareJobs',
    'sample.ts:3: registerShopifyRoutes(app)',
  ]);
});
