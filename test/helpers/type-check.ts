// Type-checks an integrator's file as strictly as they would (strict, NodeNext unless told), with
// TypeScript's own compiler: what the tests of generated clients and types compile their usage with.
import path from 'node:path';
import ts from 'typescript';

/** How an integrator's project resolves modules: Node's two modes of TypeScript, or a bundler's. */
export type ModuleMode = 'nodenext' | 'node16' | 'bundler';

const MODES: Record<ModuleMode, Pick<ts.CompilerOptions, 'module' | 'moduleResolution'>> = {
  nodenext: { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext },
  node16: { module: ts.ModuleKind.Node16, moduleResolution: ts.ModuleResolutionKind.Node16 },
  bundler: { module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler },
};

/**
 * The compiler's messages for `files` and what they import; `node` adds Node's and the DOM's types
 * (fetch); `module` is the project's module mode (default nodenext); `libCheck` checks declaration
 * files too (a package's own .d.ts, which skipLibCheck would let be wrong).
 */
export function typeErrors(files: string | string[], opts: { node?: boolean; module?: ModuleMode; libCheck?: boolean } = {}): string[] {
  const program = ts.createProgram(Array.isArray(files) ? files : [files], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    ...MODES[opts.module ?? 'nodenext'],
    allowImportingTsExtensions: true,
    skipLibCheck: opts.libCheck !== true,
    // TypeScript's own lib files (the DOM's is large) are right as shipped: never check them.
    skipDefaultLibCheck: true,
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
