// Builds what the two publishable packages ship beside their sources:
// - `@readybell/webhooks` (packages/webhooks) from the one source of the verifier,
//   src/webhooks/verify.ts, and its event types src/webhooks/events/: plain JavaScript, because
//   Node refuses to strip types from .ts files under node_modules, and declarations for TypeScript.
// - `@readybell/client` (packages/client): its source is already JavaScript with declarations; only
//   the CommonJS entry is built.
// Both packages are ES modules with one implementation; a CommonJS caller gets `dist/index.cjs`,
// which is `require()` of that module (Node 20.19+/22.12+), and `.d.cts` declarations so that
// TypeScript's node16/nodenext CommonJS mode types it as what it is (decision 0068). Nothing else
// needs building: the service runs its TypeScript directly. Run by `npm run prepare` (so after
// `npm ci`), before `npm test`, and by each package's `prepack` (so `npm pack` never ships a stale
// build). The root package's `readybell/webhooks` export points at the same files.
import { stripTypeScriptTypes } from 'node:module';
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const root = path.resolve(import.meta.dirname, '..');

/** Written whole or not at all: tests may import the build while `npm pack` (prepack) rewrites it. */
function replace(file: string, text: string): void {
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, text);
  renameSync(temp, file);
}

function declarationsOf(source: string): string {
  const declarations = ts.transpileDeclaration(source, {
    fileName: 'index.ts',
    reportDiagnostics: true,
    compilerOptions: {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      strict: true,
      allowImportingTsExtensions: true,
    },
  });
  if (declarations.diagnostics !== undefined && declarations.diagnostics.length > 0) {
    // Declarations that need inference cannot be emitted file by file: name the types in verify.ts.
    throw new Error(declarations.diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')).join('\n'));
  }
  return declarations.outputText;
}

const TYPE_IMPORT = /^(import type \{[^}]*\} from '[^']+')(;)$/gm;

/**
 * The `.d.cts` twin of ESM declarations. Its type-only imports of the package's own files name ES module declarations, which
 * TypeScript's node16 mode refuses in a CommonJS file unless they say `resolution-mode: import`.
 */
function commonJsDeclarations(esm: string): string {
  const cjs = esm.replace(TYPE_IMPORT, `$1 with { 'resolution-mode': 'import' }$2`);
  // Node's own modules are typed for both module systems; a value import of the package's ES module is not.
  if (/^import (?!type).* from '\./m.test(cjs)) throw new Error('only type-only imports can be carried into .d.cts declarations');
  return cjs;
}

/** The CommonJS entry: the ES module itself, so both module systems share one copy (one WebhookSignatureError class). */
function commonJsEntry(esmEntry: string): string {
  return `// CommonJS entry of this ES module package: require() of the module itself (Node 20.19+, 22.12+).\n'use strict';\nmodule.exports = require('${esmEntry}');\n`;
}

function buildWebhooks(): void {
  const source = readFileSync(path.join(root, 'src/webhooks/verify.ts'), 'utf8');
  const out = path.join(root, 'packages/webhooks/dist');
  const declarations = declarationsOf(source).replaceAll("from './events/index.ts'", "from './events/index.js'");
  const eventsDir = path.join(root, 'src/webhooks/events');
  mkdirSync(path.join(out, 'events'), { recursive: true });
  // The event types, one schema a file as generated, with their relative imports named as shipped.
  for (const name of readdirSync(eventsDir)) {
    const text = readFileSync(path.join(eventsDir, name), 'utf8').replace(/from '(\.\/[^']+)\.ts'/g, "from '$1.js'");
    replace(path.join(out, 'events', name.replace(/\.ts$/, '.d.ts')), text);
  }
  replace(path.join(out, 'index.js'), stripTypeScriptTypes(source, { mode: 'strip' }));
  replace(path.join(out, 'index.d.ts'), declarations);
  replace(path.join(out, 'index.cjs'), commonJsEntry('./index.js'));
  replace(path.join(out, 'index.d.cts'), commonJsDeclarations(declarations));
}

function buildClient(): void {
  const declarations = readFileSync(path.join(root, 'packages/client/src/index.d.ts'), 'utf8');
  const out = path.join(root, 'packages/client/dist');
  mkdirSync(out, { recursive: true });
  replace(path.join(out, 'index.cjs'), commonJsEntry('../src/index.js'));
  replace(path.join(out, 'index.d.cts'), commonJsDeclarations(declarations.replaceAll("from './", "from '../src/")));
}

buildWebhooks();
buildClient();
