// The WhatsApp sender: SMS's Twilio adapter given the WhatsApp `from` (whatsapp:+…), which is the
// whole difference on the provider's side, and the approved ready template's Content SID.
import type { WhatsAppConfig } from '../../core/config.ts';
import { TwilioSmsProvider } from '../sms/twilio.ts';
import type { WhatsAppSender } from './whatsapp-channel.ts';

export function twilioWhatsAppSender(config: WhatsAppConfig, timeoutMs: number): WhatsAppSender {
  const twilio = new TwilioSmsProvider(config, timeoutMs);
  return { send: (message) => twilio.send(message), readyTemplate: config.readyTemplate };
}
