// Builds the staff page into dist/web/staff, served by readybell itself under /staff/.
// Asset names carry content hashes, which is what lets the server cache them for a year.
import { defineConfig } from 'vite';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: here,
  base: '/staff/',
  logLevel: 'warn',
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: {
    outDir: fileURLToPath(new URL('../../dist/web/staff', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // No inline script anywhere: the page's CSP is script-src 'self'.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    reportCompressedSize: false,
  },
  // `npm run dev:web` against a readybell on :3000, same origin through the proxy.
  server: { proxy: { '/v1': { target: 'http://127.0.0.1:3000' } } },
});
