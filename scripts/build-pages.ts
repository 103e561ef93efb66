// Builds the customer page's and the display board's scripts (web/customer/main.ts,
// web/board/main.ts, with web/shared) into one classic script each, customer.js and board.js, in
// dist/web/pages or the folder given. The server reads them at start (src/http/pages/assets.ts)
// and serves them under a content-hash version. Classic scripts, not modules: the pages load them
// with <script defer>, and the board runs on TV and kiosk browsers, so its script keeps to ES2015
// syntax; the customer page's keeps to ES2020 (what it was written in before it was TypeScript).
// Run by `npm run build:web` (so by npm start, npm test and the release).
//
//   node scripts/build-pages.ts [OUT]
import path from 'node:path';
import { build } from 'vite';

const root = path.resolve(import.meta.dirname, '..');
const out = path.resolve(process.argv[2] ?? path.join(root, 'dist/web/pages'));

const PAGES = [
  { name: 'customer', target: 'es2020' },
  { name: 'board', target: 'es2015' },
] as const;

for (const [i, page] of PAGES.entries()) {
  await build({
    configFile: false,
    root,
    logLevel: 'warn',
    build: {
      outDir: out,
      emptyOutDir: i === 0,
      target: page.target,
      minify: 'esbuild',
      reportCompressedSize: false,
      lib: {
        entry: path.join(root, 'web', page.name, 'main.ts'),
        formats: ['iife'],
        name: `readybell_${page.name}`,
        fileName: () => `${page.name}.js`,
      },
    },
  });
}
