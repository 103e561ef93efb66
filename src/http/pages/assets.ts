// The browser files of the customer page and the board, read once at start: their stylesheets and
// the service worker (web/), their scripts built from TypeScript (dist/web/pages) and the
// home-screen icons rendered from web/icon.svg (dist/web/icons), both by `npm run build:web`.
// Scripts and icons are served under a content-hash version with a year's caching; stylesheets
// are inlined (one round trip less on a slow phone network) and allowed by their hash in the CSP,
// so no page needs 'unsafe-inline'.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const WEB = path.join(ROOT, 'web');
export const ICONS_DIST = path.join(ROOT, 'dist/web/icons');
/** scripts/build-pages.ts writes customer.js and board.js here. */
export const PAGES_DIST = path.join(ROOT, 'dist/web/pages');
const PAGE_SCRIPTS = ['customer.js', 'board.js'] as const;

/** The PNG icons of the web app manifest, by pixel size (scripts/build-icons.ts renders them). */
export const MANIFEST_ICONS = [
  { name: 'icon-192.png', size: 192 },
  { name: 'icon-512.png', size: 512 },
] as const;
/** What an iPhone puts on its Home Screen (180 px, opaque). */
export const APPLE_TOUCH_ICON = { name: 'apple-touch-icon.png', size: 180 } as const;

export type Asset = { body: Buffer; type: string; version: string };

export type WebAssets = {
  files: Map<string, Asset>;
  /** Whether the built icons are there: a checkout that never ran `npm run build:web` has none. */
  iconsBuilt: boolean;
  /** `/assets/<name>?v=<hash>` */
  url(name: string): string;
  /** The page's deferred script tag; empty in a checkout that never built them (the pages work without). */
  scriptTag(name: (typeof PAGE_SCRIPTS)[number]): string;
  customerCss: string;
  boardCss: string;
  styleHash(css: string): string;
  serviceWorker: Buffer;
};

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.css': 'text/css; charset=utf-8',
};

function read(rel: string): Buffer {
  return readFileSync(path.join(WEB, rel));
}

export function loadWebAssets(iconsDir = ICONS_DIST, pagesDir = PAGES_DIST): WebAssets {
  const files = new Map<string, Asset>();
  const add = (name: string, body: Buffer): void => {
    files.set(name, {
      body,
      type: TYPES[path.extname(name)]!,
      version: createHash('sha256').update(body).digest('base64url').slice(0, 12),
    });
  };
  add('icon.svg', read('icon.svg'));
  // Optional like the staff page and the icons: a page without its script is complete, only not live.
  for (const name of PAGE_SCRIPTS) if (existsSync(path.join(pagesDir, name))) add(name, readFileSync(path.join(pagesDir, name)));
  // Like the staff page, the icons are optional at run time: without them the manifest offers the
  // SVG icon alone and the page links no apple-touch-icon, and nothing else changes.
  const icons = [...MANIFEST_ICONS, APPLE_TOUCH_ICON].map((i) => path.join(iconsDir, i.name));
  const iconsBuilt = icons.every((f) => existsSync(f));
  if (iconsBuilt) for (const f of icons) add(path.basename(f), readFileSync(f));
  const hashes = new Map<string, string>();
  const url = (name: string): string => `/assets/${name}?v=${files.get(name)!.version}`;
  return {
    files,
    iconsBuilt,
    url,
    scriptTag: (name) => (files.has(name) ? `<script src="${url(name)}" defer></script>` : ''),
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
