// Makes a process see the repository's install as a lean release (scripts/release.sh --lean,
// decision 0070): the tracing packages it leaves out (TRACING_PACKAGES) fail to resolve as if
// absent, through require, require.resolve and import alike. Loaded with
// NODE_OPTIONS=--import=<this file> in a child process; faster than building a release.
import { registerHooks } from 'node:module';
import { TRACING_PACKAGES } from '../../src/telemetry/sdk.ts';

const absent = new Set(TRACING_PACKAGES);

registerHooks({
  resolve(specifier, context, nextResolve) {
    const parts = specifier.split('/');
    const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
    if (absent.has(name)) {
      throw Object.assign(new Error(`Cannot find module '${specifier}' (left out: a lean release has no tracing packages)`), {
        code: 'MODULE_NOT_FOUND',
      });
    }
    return nextResolve(specifier, context);
  },
});
