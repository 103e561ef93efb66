// Builds ringing for the composition root: the ring-policy ringer with the push, SMS and WhatsApp channels
// and the live ones it is given (page, display), and the shared VAPID keys the customer push
// routes hand out (their routes, and the SMS provider's webhooks, are in src/http/route-table.ts).
// It needs only the base services, so the ringer exists before the Services that hold it.
import type { BaseServices } from '../core/ctx.ts';
import { ChannelRinger } from './channel-ringer.ts';
import { PushChannel } from './push.ts';
import type { OutboundHttpClient } from '../webhooks/http-client.ts';
import { SmsChannel } from './sms/sms-channel.ts';
import { TwilioSmsProvider } from './sms/twilio.ts';
import type { SmsProvider } from './sms/provider.ts';
import type { Channel } from './ringer.ts';
import { WhatsAppChannel } from './whatsapp/whatsapp-channel.ts';
import { twilioWhatsAppSender } from './whatsapp/sender.ts';
import { VapidKeyStore } from './vapid.ts';
import { getBranch } from '../store/tenancy.ts';
import { DEFAULT_SETTINGS } from '../domain/branch-settings.ts';
import { WalletChannel } from './wallet/wallet-channel.ts';
import { AppleWalletIssuer } from './wallet/apple/apple-issuer.ts';
import { createApnsSender, type ApnsSender } from './wallet/apple/apns.ts';
import type { WalletIssuer } from './wallet/issuer.ts';
import { createGoogleWalletIssuer, type GoogleWalletIssuer } from './wallet/google/google-issuer.ts';

/**
 * `walletIssuers`: the configured wallets (the wallet module's close job asks them: walletModule); `googleWallet`:
 * Google's, whose save link the customer page's route hands out; `close` ends APNs' session.
 */
export type RingChannels = {
  ringer: ChannelRinger;
  vapid: VapidKeyStore;
  walletIssuers: WalletIssuer[];
  googleWallet: GoogleWalletIssuer | null;
  close(): void;
};

/**
 * `channels`: the live ones (page, display), and any that take the place of a built-in channel of
 * the same name (tests); `sms`: another provider adapter; `http`: the app's outbound client, which pushes go out with.
 */
export function installRingChannels(
  services: BaseServices,
  opts: { channels?: Channel[]; sms?: SmsProvider; http: OutboundHttpClient },
): RingChannels {
  const { config, db, clock, log, metrics } = services;
  const vapid = new VapidKeyStore(db, config.push, () => clock.now());
  const provider = opts.sms ?? (config.sms === null ? null : new TwilioSmsProvider(config.sms, config.ring.sendTimeoutMs));
  // Wallets: only those configured; with none, there is no `wallet` channel at all.
  const apns: ApnsSender | null = config.appleWallet === null ? null : createApnsSender(config.appleWallet, config.ring.sendTimeoutMs);
  const walletIssuers: WalletIssuer[] = [];
  if (apns !== null)
    walletIssuers.push(
      new AppleWalletIssuer({ db, bus: services.bus, clock, log, sendTimeoutMs: config.ring.sendTimeoutMs, metrics }, apns),
    );
  const googleWallet =
    config.googleWallet === null ? null : createGoogleWalletIssuer({ db, clock, log, config, google: config.googleWallet, metrics });
  if (googleWallet !== null) walletIssuers.push(googleWallet);
  const wallet = new WalletChannel(walletIssuers, async (request) => {
    const branch = await getBranch(db, request.ticket.branchId);
    return { name: branch?.name ?? '', settings: branch?.settings ?? DEFAULT_SETTINGS };
  });
  const ringer = new ChannelRinger({ db, log }, [
    new PushChannel({ db, clock, log, config, vapid, http: opts.http, metrics }),
    new SmsChannel(
      { db, bus: services.bus, clock, log, publicUrl: config.publicUrl, sendTimeoutMs: config.ring.sendTimeoutMs, metrics },
      provider,
    ),
    new WhatsAppChannel(
      { db, bus: services.bus, clock, log, publicUrl: config.publicUrl, sendTimeoutMs: config.ring.sendTimeoutMs, metrics },
      config.whatsapp === null ? null : twilioWhatsAppSender(config.whatsapp, config.ring.sendTimeoutMs),
    ),
    ...(walletIssuers.length > 0 ? [wallet] : []),
    ...(opts.channels ?? []),
  ]);
  return { ringer, vapid, walletIssuers, googleWallet, close: () => apns?.close() };
}
