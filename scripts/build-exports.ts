// Node refuses to strip types from .ts files under node_modules, so a project that installs
// readybell to use `readybell/webhooks` needs plain JavaScript. This writes it (and nothing else
// needs building: the service itself runs its TypeScript directly). Run by `npm run prepare`.
import { stripTypeScriptTypes } from 'node:module';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const source = readFileSync(path.join(root, 'src/webhooks/verify.ts'), 'utf8');
mkdirSync(path.join(root, 'dist/webhooks'), { recursive: true });
writeFileSync(path.join(root, 'dist/webhooks/verify.js'), stripTypeScriptTypes(source, { mode: 'strip' }));
