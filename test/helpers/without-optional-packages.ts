// Makes a process see the repository's install as a lean one (npm ci --omit=optional, the release's
// --lean; decision 0070): every package the lockfile marks optional, which is what such an install
// leaves out, fails to resolve as if absent, through require, require.resolve and import alike.
// Loaded with NODE_OPTIONS=--import=<this file> in a child process; faster than building a release.
import { readFileSync } from 'node:fs';
import { registerHooks } from 'node:module';
import path from 'node:path';

type Lock = { packages: Record<string, { optional?: boolean; devOptional?: boolean }> };

const lock = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../../package-lock.json'), 'utf8')) as Lock;
const nameOf = (key: string): string => key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length);
const entries = Object.entries(lock.packages).filter(([key]) => key !== '');
// A name installed elsewhere in the tree as a required package stays: the lean install has it too.
const required = new Set(entries.filter(([, p]) => p.optional !== true && p.devOptional !== true).map(([key]) => nameOf(key)));
const absent = new Set(entries.filter(([, p]) => p.optional === true || p.devOptional === true).map(([key]) => nameOf(key)));
for (const name of required) absent.delete(name);

registerHooks({
  resolve(specifier, context, nextResolve) {
    const parts = specifier.split('/');
    const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
    if (absent.has(name)) {
      throw Object.assign(new Error(`Cannot find module '${specifier}' (left out: a lean install has no optional packages)`), {
        code: 'MODULE_NOT_FOUND',
      });
    }
    return nextResolve(specifier, context);
  },
});
