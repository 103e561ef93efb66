// What the live side adds to the server: the customer page, the display board and their static
// files. Long-lived streams are ended before the server closes, or a graceful shutdown would
// wait for them forever (clients reconnect to another node).
import type { FastifyInstance } from 'fastify';
import type { Services } from '../actions/ctx.ts';
import type { Live } from '../realtime/live.ts';
import type { RateLimiter } from '../realtime/limiter.ts';
import { loadWebAssets } from './pages/assets.ts';
import { registerCustomerPage } from './routes/customer-page.ts';
import { registerBoardPage } from './routes/board-page.ts';
import { registerWebAssets } from './routes/web-assets.ts';

export type LivePagesOptions = {
  services: Services;
  live: Live;
  limiter: RateLimiter;
  /**
   * Push hook (channels): a same-origin script loaded before the page's own, defining
   * `window.readybellPush = { supported(): boolean, subscribe(): Promise<unknown> }`. The
   * "Alert me" tap calls subscribe() when supported() is true; without the script no push is offered.
   */
  pushScript?: string | null;
};

export function livePageRoutes(opts: LivePagesOptions): Array<(app: FastifyInstance) => void> {
  const assets = loadWebAssets();
  const deps = { services: opts.services, live: opts.live, limiter: opts.limiter, assets, pushScript: opts.pushScript ?? null };
  return [
    (app) => {
      app.addHook('preClose', async () => {
        await opts.live.hub.close();
      });
      registerWebAssets(app, assets);
      registerCustomerPage(app, deps);
      registerBoardPage(app, deps);
    },
  ];
}
