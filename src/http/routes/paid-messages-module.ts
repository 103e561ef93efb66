// The paid message channels' provider callbacks as the app installs them (decision 0076): SMS and
// WhatsApp share one provider (Twilio), so one group takes its delivery receipts and the
// customers' replies for both. Always mounted: without the provider configured every request is
// 403, which tells a misdirected callback apart from a missing route.
import type { AppModule } from '../route-table.ts';
import { PAID_CHANNELS, channelDeclaration } from '../../core/channel-catalogue.ts';
import { registerSmsWebhooks, SMS_INBOUND_PATH, SMS_STATUS_PATH } from './sms-webhooks.ts';

export const paidMessagesModule: AppModule = {
  name: 'paid-messages',
  kind: 'channel',
  config: [...new Set(PAID_CHANNELS.flatMap((c) => channelDeclaration(c).config))],
  configured: (config) => config.sms !== null || config.whatsapp !== null,
  routes: {
    groups: [
      {
        scope: 'sms-provider',
        paths: `POST ${SMS_INBOUND_PATH}, POST ${SMS_STATUS_PATH}/{ring}`,
        auth: 'the SMS provider: X-Twilio-Signature over the public URL and the form, keyed with SMS_AUTH_TOKEN (decision 0026); anything else is 403',
        mount: (app, d) => app.register(async (scope) => registerSmsWebhooks(scope, d.services, d.limiter)),
      },
    ],
  },
};
