#!/usr/bin/env node
// Runs under the project's pinned Node 24 (node_modules/.bin/node comes first on npm's PATH),
// which executes the TypeScript sources directly.
import '../src/cli/main.ts';
