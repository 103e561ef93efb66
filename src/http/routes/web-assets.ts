// Static files of the customer page and the board. Versioned URLs (?v=<content hash>) are cached
// for a year; the service worker is revalidated on every load, as browsers expect.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { WebAssets } from '../pages/assets.ts';
import { AppError } from '../../domain/errors.ts';
import { hidden, typed } from '../operation.ts';

// `v` is compared, never refused: a stale or odd one is served uncached.
const Asset = hidden({ params: Type.Object({ file: Type.String() }), querystring: Type.Object({ v: Type.Optional(Type.Unknown()) }) });

export function registerWebAssets(fastify: FastifyInstance, assets: WebAssets): void {
  const app = typed(fastify);
  const hide = { schema: { hide: true } };
  app.get('/assets/:file', { schema: Asset }, async (req, reply) => {
    const { file } = req.params;
    const asset = assets.files.get(file);
    if (asset === undefined) throw new AppError('not-found', `No asset ${file}.`);
    const versioned = req.query.v === asset.version;
    return reply
      .header('cache-control', versioned ? 'public, max-age=31536000, immutable' : 'no-cache')
      .header('x-content-type-options', 'nosniff')
      .header('etag', `"${asset.version}"`)
      .type(asset.type)
      .send(asset.body);
  });

  app.get('/sw.js', hide, async (_req, reply) =>
    reply
      .header('cache-control', 'no-cache')
      .header('x-content-type-options', 'nosniff')
      .type('text/javascript; charset=utf-8')
      .send(assets.serviceWorker),
  );
}
