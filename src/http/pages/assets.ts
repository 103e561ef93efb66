// The browser files of the customer page and the board (web/), read once at start. Scripts and
// icons are served under a content-hash version with a year's caching; stylesheets are inlined
// (one round trip less on a slow phone network) and allowed by their hash in the CSP, so no page
// needs 'unsafe-inline'.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const WEB = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../web');

export type Asset = { body: Buffer; type: string; version: string };

export type WebAssets = {
  files: Map<string, Asset>;
  /** `/assets/<name>?v=<hash>` */
  url(name: string): string;
  customerCss: string;
  boardCss: string;
  styleHash(css: string): string;
  serviceWorker: Buffer;
};

const TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.svg': 'image/svg+xml', '.css': 'text/css; charset=utf-8' };

function read(rel: string): Buffer {
  return readFileSync(path.join(WEB, rel));
}

export function loadWebAssets(): WebAssets {
  const files = new Map<string, Asset>();
  for (const [name, rel] of [['customer.js', 'customer/customer.js'], ['board.js', 'board/board.js'], ['icon.svg', 'icon.svg']] as const) {
    const body = read(rel);
    files.set(name, { body, type: TYPES[path.extname(name)]!, version: createHash('sha256').update(body).digest('base64url').slice(0, 12) });
  }
  const hashes = new Map<string, string>();
  return {
    files,
    url: (name) => `/assets/${name}?v=${files.get(name)!.version}`,
    customerCss: read('customer/customer.css').toString('utf8').trim(),
    boardCss: read('board/board.css').toString('utf8').trim(),
    styleHash(css) {
      let h = hashes.get(css);
      if (h === undefined) {
        h = `'sha256-${createHash('sha256').update(css).digest('base64')}'`;
        hashes.set(css, h);
      }
      return h;
    },
    serviceWorker: read('customer/sw.js'),
  };
}
