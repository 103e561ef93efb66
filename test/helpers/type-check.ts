// Type-checks an integrator's file as strictly as they would (strict, NodeNext), with TypeScript's
// own compiler: what the tests of generated clients and types compile their usage with.
import path from 'node:path';
import ts from 'typescript';

/** The compiler's messages for `file` and what it imports; `node` adds Node's and the DOM's types (fetch). */
export function typeErrors(file: string, opts: { node?: boolean } = {}): string[] {
  const program = ts.createProgram([file], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    allowImportingTsExtensions: true,
    skipLibCheck: true,
    ...(opts.node
      ? {
          lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
          types: ['node'],
          typeRoots: [path.resolve(import.meta.dirname, '../../node_modules/@types')],
        }
      : { types: [] }),
  });
  return ts
    .getPreEmitDiagnostics(program)
    .map((d) => `${d.file ? `${d.file.fileName}: ` : ''}${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}
