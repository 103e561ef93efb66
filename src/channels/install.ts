// Wires ringing into a service: the ring-policy ringer with the push and SMS channels (page and
// display join it through `ringer.add`), the shared VAPID keys, and the customer push routes.
// Called by the composition root only.
import type { FastifyInstance } from 'fastify';
import type { Services } from '../actions/ctx.ts';
import type { RateLimiter } from '../realtime/limiter.ts';
import { registerPushRoutes } from '../http/routes/push.ts';
import { ChannelRinger } from './channel-ringer.ts';
import { PushChannel, type HostLookup } from './push.ts';
import { SmsChannel } from './sms/sms-channel.ts';
import { TwilioSmsProvider } from './sms/twilio.ts';
import type { SmsProvider } from './sms/provider.ts';
import type { Channel } from './ringer.ts';
import { VapidKeyStore } from './vapid.ts';

export type RingChannels = { ringer: ChannelRinger; vapid: VapidKeyStore; routes: (app: FastifyInstance) => void };

/** `channels`: the live ones (page, display); `sms`: another provider adapter; `lookup`: a resolver for push hosts (tests). */
export function installRingChannels(
  services: Services,
  limiter: RateLimiter,
  opts: { channels?: Channel[]; sms?: SmsProvider; lookup?: HostLookup } = {},
): RingChannels {
  const { config, db, clock, log, metrics } = services;
  const vapid = new VapidKeyStore(db, config.push, () => clock.now());
  const provider = opts.sms ?? (config.sms === null ? null : new TwilioSmsProvider(config.sms, config.ring.sendTimeoutMs));
  const ringer = new ChannelRinger({ db, log }, [
    new PushChannel({ db, clock, log, config, vapid, lookup: opts.lookup, metrics }),
    new SmsChannel({ db, clock, log, publicUrl: config.publicUrl, sendTimeoutMs: config.ring.sendTimeoutMs, metrics }, provider),
    ...(opts.channels ?? []),
  ]);
  services.ringer = ringer;
  return { ringer, vapid, routes: (app) => registerPushRoutes(app, { services, limiter, vapid }) };
}
