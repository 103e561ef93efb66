// Web Push as the app installs it (decision 0076): the push channel's routes, declared with the
// channel rather than named in the route table. Always installed: the node makes its own VAPID keys
// when none are configured, so a page can subscribe on any install.
import type { AppModule } from '../route-table.ts';
import { channelDeclaration } from '../../core/channel-catalogue.ts';
import { PUSH_SCRIPT_PATH, registerPushRoutes } from './push.ts';

export const pushModule: AppModule = {
  name: 'push',
  kind: 'channel',
  config: channelDeclaration('push').config,
  configured: () => true,
  routes: {
    groups: [
      {
        scope: 'push',
        paths: `${PUSH_SCRIPT_PATH}, /push-sw.js, /push/vapid.json, POST /t/{token}/push`,
        auth: "anyone for the scripts and the public key; the ticket link's token for a subscription",
        mount: (app, d) => registerPushRoutes(app, { services: d.services, limiter: d.limiter, vapid: d.vapid }),
      },
    ],
  },
};
