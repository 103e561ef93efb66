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
 * (fetch), with the DOM's iterables as TypeScript's default libraries have them; `module` is the project's module mode (default nodenext); `checkDeclarationsUnder` (a
 * folder, such as a package installed in node_modules) checks the declaration files there too, which
 * skipLibCheck would let be wrong, and only those: checking all of Node's types would take seconds.
 */
export function typeErrors(
  files: string | string[],
  opts: { node?: boolean; module?: ModuleMode; checkDeclarationsUnder?: string } = {},
): string[] {
  const under = opts.checkDeclarationsUnder;
  const program = ts.createProgram(Array.isArray(files) ? files : [files], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    ...MODES[opts.module ?? 'nodenext'],
    allowImportingTsExtensions: true,
    skipLibCheck: under === undefined,
    ...(opts.node
      ? {
          lib: ['lib.es2023.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
          types: ['node'],
          typeRoots: [path.resolve(import.meta.dirname, '../../node_modules/@types')],
        }
      : { types: [] }),
  });
  const diagnostics =
    under === undefined
      ? ts.getPreEmitDiagnostics(program)
      : [
          ...program.getOptionsDiagnostics(),
          ...program.getGlobalDiagnostics(),
          ...program
            .getSourceFiles()
            .filter((sf) => !sf.isDeclarationFile || sf.fileName.startsWith(under))
            .flatMap((sf) => [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)]),
        ];
  return diagnostics.map((d) => `${d.file ? `${d.file.fileName}: ` : ''}${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}
