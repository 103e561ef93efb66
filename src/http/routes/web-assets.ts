// Static files of the customer page and the board. Versioned URLs (?v=<content hash>) are cached
// for a year; the service worker is revalidated on every load, as browsers expect.
import type { FastifyInstance } from 'fastify';
import type { WebAssets } from '../pages/assets.ts';
import { AppError } from '../../domain/errors.ts';

export function registerWebAssets(app: FastifyInstance, assets: WebAssets): void {
  const hide = { schema: { hide: true } };
  app.get('/assets/:file', hide, async (req, reply) => {
    const { file } = req.params as { file: string };
    const asset = assets.files.get(file);
    if (asset === undefined) throw new AppError('not-found', `No asset ${file}.`);
    const versioned = (req.query as { v?: string }).v === asset.version;
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
