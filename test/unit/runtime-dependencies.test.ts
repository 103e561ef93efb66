// The release installs `dependencies` only (npm ci --omit=dev --ignore-scripts): a package the
// service imports must be declared there, not reached through another package's hoisting or a
// devDependency, and nothing declared there should be shipped unused. The tracing packages are
// left out by a lean release (TRACING_PACKAGES, decision 0070): only the SDK's loader, which runs
// when OTEL_* asks for traces and checks they are there first, may load them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import ts from 'typescript';
import { SDK_MODULES, TRACING_PACKAGES } from '../../src/telemetry/sdk.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const shipped = pkg.dependencies;

/** The one file that loads the tracing packages, with require, after missingSdkPackages found them. */
const SDK_LOADER = 'src/telemetry/sdk.ts';

type Specifier = { text: string; viaRequire: boolean };

/** Bare specifiers a file loads at run time: type-only imports and exports are erased by Node. */
function runtimeImports(file: string): Specifier[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  const found: Specifier[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && !node.importClause?.isTypeOnly && ts.isStringLiteral(node.moduleSpecifier))
      found.push({ text: node.moduleSpecifier.text, viaRequire: false });
    else if (
      ts.isExportDeclaration(node) &&
      !node.isTypeOnly &&
      node.moduleSpecifier !== undefined &&
      ts.isStringLiteral(node.moduleSpecifier)
    )
      found.push({ text: node.moduleSpecifier.text, viaRequire: false });
    else if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'require') {
      // createRequire's require: tracing loads its SDK this way, only when OTEL_* asks for it.
      const [arg] = node.arguments;
      assert.ok(
        arg !== undefined && ts.isStringLiteralLike(arg),
        `${path.relative(ROOT, file)}: require() of a computed name cannot be checked`,
      );
      found.push({ text: arg.text, viaRequire: true });
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      assert.ok(
        arg !== undefined && ts.isStringLiteralLike(arg),
        `${path.relative(ROOT, file)}: import() of a computed name cannot be checked`,
      );
      found.push({ text: arg.text, viaRequire: false });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found.filter((s) => !s.text.startsWith('.') && !s.text.startsWith('/'));
}

function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** What the release runs: the service's sources and the `readybell` bin. */
function releaseFiles(): string[] {
  const src = readdirSync(path.join(ROOT, 'src'), { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.[cm]?[jt]s$/.test(f))
    .map((f) => path.join(ROOT, 'src', f));
  return [...src, path.join(ROOT, 'bin/readybell.js')];
}

/** Each package the service loads, with the files that load it and how (`file` or `file (require)`). */
function importedPackages(): Map<string, string[]> {
  const byPackage = new Map<string, string[]>();
  for (const file of releaseFiles()) {
    for (const { text, viaRequire } of runtimeImports(file)) {
      if (text.startsWith('node:') || builtinModules.includes(text)) continue;
      const name = packageName(text);
      const where = path.relative(ROOT, file) + (viaRequire ? ' (require)' : '');
      byPackage.set(name, [...(byPackage.get(name) ?? []), where]);
    }
  }
  return byPackage;
}

const imported = importedPackages();

test('every package the service imports at run time is one of its dependencies', () => {
  const undeclared = [...imported].filter(([name]) => !(name in shipped)).map(([name, files]) => `${name} (${files.join(', ')})`);
  assert.deepEqual(undeclared, [], 'imported by src/ but not in package.json dependencies');
});

test('every dependency is imported by the service (devDependencies hold the rest)', () => {
  assert.deepEqual(
    Object.keys(shipped).filter((name) => !imported.has(name)),
    [],
  );
});

test('a tracing package is loaded only by the SDK loader, with require, never at start', () => {
  const elsewhere = TRACING_PACKAGES.flatMap((name) =>
    (imported.get(name) ?? []).filter((where) => where !== `${SDK_LOADER} (require)`).map((where) => `${name}: ${where}`),
  );
  assert.deepEqual(elsewhere, []);
  assert.deepEqual(
    TRACING_PACKAGES.filter((name) => !(name in pkg.dependencies)),
    [],
    'every package a lean release leaves out is a dependency of the full one',
  );
  // What missingSdkPackages checks is what startSdk requires: a package left out of the check would
  // be a stack trace on a lean install with OTEL_* set.
  const required = runtimeImports(path.join(ROOT, SDK_LOADER))
    .filter((s) => s.viaRequire)
    .map((s) => s.text);
  assert.deepEqual([...new Set(required)].sort(), [...SDK_MODULES].sort());
});

/**
 * Install scripts the release may skip, each read and found to change nothing the service runs:
 * protobufjs's postinstall (brought by the OpenTelemetry SDK's exporters) only prints a warning
 * when the project depending on it names an unexpected version scheme.
 */
const SKIPPABLE_INSTALL_SCRIPTS = new Set(['node_modules/protobufjs']);

test('no production package needs its install script, so the release installs with --ignore-scripts', () => {
  const lock = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dev?: boolean; hasInstallScript?: boolean }>;
  };
  const withScripts = Object.entries(lock.packages)
    .filter(([key, p]) => key !== '' && p.dev !== true && p.hasInstallScript === true && !SKIPPABLE_INSTALL_SCRIPTS.has(key))
    .map(([key]) => key);
  assert.deepEqual(withScripts, []);
});
