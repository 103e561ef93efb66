// Builds the publishable receiver package `@readybell/webhooks` (packages/webhooks) from the one
// source of the verifier, src/webhooks/verify.ts: plain JavaScript, because Node refuses to strip
// types from .ts files under node_modules, and its declarations for TypeScript users. Nothing else
// needs building: the service runs its TypeScript directly. Run by `npm run prepare` (so after
// `npm ci`), before `npm test`, and by the package's `prepack` (so `npm pack` never ships a stale
// build). The root package's `readybell/webhooks` export points at the same files.
import { stripTypeScriptTypes } from 'node:module';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const root = path.resolve(import.meta.dirname, '..');
const source = readFileSync(path.join(root, 'src/webhooks/verify.ts'), 'utf8');
const out = path.join(root, 'packages/webhooks/dist');

const declarations = ts.transpileDeclaration(source, {
  fileName: 'index.ts',
  reportDiagnostics: true,
  compilerOptions: {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
  },
});
if (declarations.diagnostics !== undefined && declarations.diagnostics.length > 0) {
  // Declarations that need inference cannot be emitted file by file: name the types in verify.ts.
  throw new Error(declarations.diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')).join('\n'));
}

/** Written whole or not at all: tests may import the build while `npm pack` (prepack) rewrites it. */
function replace(file: string, text: string): void {
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, text);
  renameSync(temp, file);
}

mkdirSync(out, { recursive: true });
replace(path.join(out, 'index.js'), stripTypeScriptTypes(source, { mode: 'strip' }));
replace(path.join(out, 'index.d.ts'), declarations.outputText);
