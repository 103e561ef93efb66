// The `whatsapp` channel (decision 0091): a paid channel like SMS, through the same provider's
// Messages API from the service's WhatsApp sender. The ring policy decides whether it is used (a
// plan with paid channels, a phone number, the branch's `whatsapp_enabled`, and, as a fallback,
// no free channel reached the customer). A business writes first here, so outside the customer's
// 24-hour window the ready goes as the approved template (WHATSAPP_READY_TEMPLATE) with the ticket's
// number, the shop and the link as its variables; inside it, as the SMS's text. Its record, its
// receipts and a STOP are SMS's (one opt-out per number for every paid message); test mode never
// calls the provider.
import type { Channel } from '../ringer.ts';
import type { ChannelAttempt, RingRequest } from '../../core/ring.ts';
import { smsStatusCallbackUrl } from '../sms/sms-channel.ts';
import type { TwilioMessage } from '../sms/twilio.ts';
import type { SmsSendResult } from '../sms/provider.ts';
import { type PaidMessageDeps, ringPaidMessage } from '../sms/paid-message.ts';
import { inSession } from './session.ts';
import { whatsappRecordId } from './records.ts';

export type WhatsAppDeps = PaidMessageDeps;

/** What sends a WhatsApp message: the Twilio adapter, given the WhatsApp sender. */
export type WhatsAppSender = { send(message: TwilioMessage): Promise<SmsSendResult>; readonly readyTemplate: string };

/** The detail of a ready sent as the approved template (outside the customer's 24-hour window). */
export const TEMPLATE_DETAIL = 'accepted (template)';

export class WhatsAppChannel implements Channel {
  readonly name = 'whatsapp' as const;
  private readonly deps: WhatsAppDeps;
  /** null: no WhatsApp sender configured; live rings then report "not configured". */
  private readonly sender: WhatsAppSender | null;

  constructor(deps: WhatsAppDeps, sender: WhatsAppSender | null) {
    this.deps = deps;
    this.sender = sender;
  }

  ring(request: RingRequest, signal: AbortSignal): Promise<ChannelAttempt> {
    const { ticket } = request;
    return ringPaidMessage(this.deps, request, signal, {
      channel: 'whatsapp',
      label: 'WhatsApp',
      recordId: whatsappRecordId(request.ringId),
      configured: this.sender !== null,
      notConfigured: 'no WhatsApp sender configured',
      send: async ({ phone, digest, text, shop, link }) => {
        const session = await inSession(this.deps.db, ticket.mode, digest, this.deps.clock.now());
        const sender = this.sender!;
        const result = await sender.send({
          to: `whatsapp:${phone}`,
          body: text,
          // Outside the window only an approved template is delivered (Twilio's error 63016 otherwise).
          ...(session ? {} : { template: { sid: sender.readyTemplate, variables: { 1: ticket.displayNumber, 2: shop, 3: link } } }),
          statusCallback: smsStatusCallbackUrl(this.deps.publicUrl, request.ringId),
        });
        return { result, ...(result.accepted && !session ? { detail: TEMPLATE_DETAIL } : {}) };
      },
    });
  }
}
