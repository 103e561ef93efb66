// Serves the built staff page (dist/web/staff, from `npm run build:web`) from this process: no CDN.
// Files under assets/ carry a content hash in their names, so they are cached for a year and
// never revalidated; index.html is revalidated on every load (no-cache + ETag), which is how a
// counter tablet picks up a new release without anyone clearing its cache.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export const STAFF_DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../dist/web/staff');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.webmanifest': 'application/manifest+json',
  '.woff2': 'font/woff2',
  '.map': 'application/json',
};

// Everything the page loads comes from this origin; it calls only /v1 here. No inline script.
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

type Asset = { body: Buffer; gzip: Buffer | null; type: string; etag: string };

function load(file: string): Asset {
  const body = readFileSync(file);
  const type = TYPES[path.extname(file)] ?? 'application/octet-stream';
  const compressible = /text|javascript|json|svg/.test(type) && body.length > 512;
  return {
    body,
    gzip: compressible ? gzipSync(body, { level: 9 }) : null,
    type,
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
  };
}

function scan(dir: string, prefix = ''): Map<string, Asset> {
  const out = new Map<string, Asset>();
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) for (const [k, v] of scan(full, `${prefix}${name}/`)) out.set(k, v);
    else out.set(`${prefix}${name}`, load(full));
  }
  return out;
}

// Vary in the compression plugin's spelling (plugins/compression.ts), which it does not repeat when
// it compresses a file itself (a client that takes brotli but not gzip).
function send(req: FastifyRequest, reply: FastifyReply, asset: Asset, cache: string): FastifyReply {
  reply
    .header('Cache-Control', cache)
    .header('ETag', asset.etag)
    .header('Vary', 'accept-encoding')
    .header('X-Content-Type-Options', 'nosniff');
  if (req.headers['if-none-match'] === asset.etag) return reply.code(304).send();
  reply.type(asset.type);
  if (asset.gzip !== null && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) {
    return reply.header('Content-Encoding', 'gzip').send(asset.gzip);
  }
  return reply.send(asset.body);
}

const NOT_BUILT =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>readybell staff</title></head>' +
  '<body><h1>The staff page is not built</h1><p>Run <code>npm run build:web</code> (npm start and npm test do it for you).</p></body></html>';

export function registerStaffApp(app: FastifyInstance, dist: string = STAFF_DIST): void {
  // Scanned once; rescanned while nothing is built, so a build made after start is picked up.
  let files = scan(dist);
  const get = (name: string): Asset | undefined => {
    if (files.size === 0) files = scan(dist);
    return files.get(name);
  };

  const index = async (req: FastifyRequest, reply: FastifyReply) => {
    reply.header('Content-Security-Policy', CSP).header('X-Frame-Options', 'DENY').header('Referrer-Policy', 'same-origin');
    const html = get('index.html');
    if (html === undefined) return reply.code(503).header('Cache-Control', 'no-store').type('text/html; charset=utf-8').send(NOT_BUILT);
    return send(req, reply, html, 'no-cache');
  };
  app.get('/staff', { schema: { hide: true } }, index);
  app.get('/staff/', { schema: { hide: true } }, index);

  app.get<{ Params: { '*': string } }>('/staff/*', { schema: { hide: true } }, async (req, reply) => {
    const name = req.params['*'];
    const asset = name === 'index.html' ? undefined : get(name);
    // Unknown paths under /staff are the page's own routes (a bookmarked screen): give it the page.
    if (asset === undefined)
      return name.startsWith('assets/') ? reply.code(404).type('text/plain; charset=utf-8').send('Not found') : index(req, reply);
    return send(req, reply, asset, name.startsWith('assets/') ? 'public, max-age=31536000, immutable' : 'public, max-age=3600');
  });
}
