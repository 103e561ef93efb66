#!/usr/bin/env node
// The `readybell` command. readybell runs its TypeScript sources directly, which needs Node 24;
// this file is plain JavaScript that any Node since 14 can read (no `?.` nor `??`, no type syntax), so that it can check first:
// - on Node 24 or later it loads the CLI: src/cli/main.ts in a checkout or a release, and the
//   JavaScript build lib/cli/main.js in the installed package (`npm install readybell`, `npx`),
//   which ships no src/ because Node does not strip types under node_modules (decision 0069);
// - on an older Node, in a checkout whose `npm ci` installed the pinned Node (the `node`
//   devDependency, node_modules/node/bin/node), it runs itself again on that one, so that
//   `bin/readybell.js …` works as documented (systemd, cron) whatever `node` is on the PATH;
// - otherwise it says which Node it needs, instead of Node's ERR_UNKNOWN_FILE_EXTENSION ".ts".
// (`npx readybell` and `npm run` put node_modules/.bin, and so the pinned Node, first on the PATH.)
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const NEEDED = 24;
const major = Number(process.versions.node.split('.')[0]);
const pinned = fileURLToPath(new URL('../node_modules/node/bin/node', import.meta.url));
const source = new URL('../src/cli/main.ts', import.meta.url);

if (major >= NEEDED) {
  // Literal specifiers: test/unit/runtime-dependencies.test.ts reads what each file imports.
  if (existsSync(fileURLToPath(source))) import('../src/cli/main.ts');
  else import('../lib/cli/main.js');
} else if (existsSync(pinned) && process.env.READYBELL_PINNED_NODE !== pinned) {
  // The variable guards against a loop, should the pinned Node itself be too old.
  const env = Object.assign({}, process.env, { READYBELL_PINNED_NODE: pinned });
  const child = spawn(pinned, [fileURLToPath(import.meta.url)].concat(process.argv.slice(2)), { stdio: 'inherit', env: env });
  // A signal to this process (systemd's SIGTERM, ^C) is the server's: it shuts down gracefully.
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const signal of signals) process.on(signal, () => child.kill(signal));
  // Exits as the child did: its code, or the same signal.
  child.on('exit', (code, signal) => {
    if (signal === null) process.exit(code);
    for (const s of signals) process.removeAllListeners(s);
    process.kill(process.pid, signal);
  });
} else {
  process.stderr.write(
    `readybell needs Node ${NEEDED} or later (this is ${process.version}).\n` +
      (existsSync(fileURLToPath(source))
        ? 'In a checkout, run `npm ci`: it installs the pinned Node, which bin/readybell.js and `npx readybell` then use.\n' +
          `Otherwise install Node ${NEEDED} (https://nodejs.org) and run readybell with it.\n`
        : `Install Node ${NEEDED} (https://nodejs.org) and run readybell with it.\n`),
  );
  process.exit(1);
}
