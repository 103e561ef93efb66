// Builds what `npm pack` and `npm publish` ship of readybell itself (the service and its CLI) into
// lib/: JavaScript, because Node strips types only outside node_modules, so an installed readybell
// (`npx readybell serve`) cannot run src/*.ts. A checkout keeps running its TypeScript directly;
// bin/readybell.js loads lib/ only where src/ is absent, as in the installed package (decision 0069).
// Run by the root package's `prepack`.
//
// lib/ sits beside src/ at the same depth, so every path a module computes from its own
// import.meta.url (the migrations, ../../package.json, web/ and dist/web/) resolves the same from
// the build as from the source. Each file is transpiled alone (no type check: `npm test` has
// done that), with its relative `.ts` specifiers rewritten to `.js`; the non-TypeScript files
// src/ reads at run time (migrations' SQL, the messages' JSON) are copied beside them.
import { copyFileSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const root = path.resolve(import.meta.dirname, '..');
const src = path.join(root, 'src');
const out = path.join(root, 'lib');
// Built beside, then swapped in whole: a half-written lib/ is never what a pack picks up.
const temp = path.join(root, `lib.${process.pid}.tmp`);

const options: ts.CompilerOptions = {
  module: ts.ModuleKind.ESNext,
  target: ts.ScriptTarget.ES2024,
  verbatimModuleSyntax: true,
  rewriteRelativeImportExtensions: true,
  removeComments: false,
};

let files = 0;
rmSync(temp, { recursive: true, force: true });
for (const entry of readdirSync(src, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile()) continue;
  const from = path.join(entry.parentPath, entry.name);
  const rel = path.relative(src, from);
  mkdirSync(path.join(temp, path.dirname(rel)), { recursive: true });
  if (rel.endsWith('.d.ts') || rel.endsWith('.md')) continue;
  if (rel.endsWith('.ts')) {
    const result = ts.transpileModule(readFileSync(from, 'utf8'), { fileName: from, compilerOptions: options, reportDiagnostics: true });
    if (result.diagnostics !== undefined && result.diagnostics.length > 0) {
      throw new Error(`${rel}: ${result.diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')).join('\n')}`);
    }
    writeFileSync(path.join(temp, rel.replace(/\.ts$/, '.js')), result.outputText);
  } else {
    copyFileSync(from, path.join(temp, rel));
  }
  files++;
}
rmSync(out, { recursive: true, force: true });
renameSync(temp, out);
console.log(`build-package: ${files} files into lib/`);
