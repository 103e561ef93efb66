// The `whatsapp` channel (decision 0091): a paid channel like SMS, through the same provider's
// Messages API from the service's WhatsApp sender. The ring policy decides whether it is used (a
// plan with paid channels, a phone number, the branch's `whatsapp_enabled`, and, as a fallback,
// no free channel reached the customer). A business writes first here, so outside the customer's
// 24-hour window the ready goes as the approved template (WHATSAPP_READY_TEMPLATE) with the ticket's
// number, the shop and the link as its variables; inside it, as the SMS's text. Its record, its
// receipts and a STOP are SMS's (one opt-out per number for every paid message); test mode never
// calls the provider.
import type { FastifyBaseLogger as Logger } from 'fastify';
import { SIMULATED_DETAIL, type Channel } from '../ringer.ts';
import type { ChannelAttempt, RingRequest } from '../../core/ring.ts';
import type { Db } from '../../core/db.ts';
import type { Clock } from '../../core/clock.ts';
import type { Bus } from '../../core/bus.ts';
import type { Metrics } from '../../core/metrics.ts';
import type { SmsStatus } from '../../core/ticket.ts';
import { getBranch } from '../../store/tenancy.ts';
import { isOptedOut } from '../../store/sms-opt-outs.ts';
import { ticketUrl } from '../../contract/present.ts';
import { ringTexts, shortBranchName } from '../../i18n/ring-texts.ts';
import { sendOnce } from '../send-once.ts';
import { phoneDigest } from '../sms/phone-digest.ts';
import { recordSms } from '../sms/receipts.ts';
import { OPTED_OUT_DETAIL, smsStatusCallbackUrl } from '../sms/sms-channel.ts';
import type { TwilioMessage } from '../sms/twilio.ts';
import type { SmsSendResult } from '../sms/provider.ts';
import { inSession } from './session.ts';
import { whatsappRecordId } from './records.ts';

export type WhatsAppDeps = { db: Db; bus: Bus; clock: Clock; log: Logger; publicUrl: string; sendTimeoutMs: number; metrics?: Metrics };

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

  async ring(request: RingRequest, signal: AbortSignal): Promise<ChannelAttempt> {
    const { ticket } = request;
    const phone = ticket.customerPhone;
    if (phone === null) return { channel: 'whatsapp', delivered: false, detail: 'no phone number' };
    const simulate = !request.livemode;
    if (!simulate && this.sender === null) return { channel: 'whatsapp', delivered: false, detail: 'no WhatsApp sender configured' };
    const { db, clock } = this.deps;
    const digest = await phoneDigest(db, phone, clock.now());
    const branch = request.first?.branch ?? (await getBranch(db, ticket.branchId));
    const shop = shortBranchName(branch?.name ?? 'readybell');
    const link = ticketUrl(this.deps.publicUrl, ticket.token);
    const outcome = await sendOnce(
      this.deps,
      { ringId: request.ringId, channel: 'whatsapp', target: 'phone' },
      ticket.id,
      signal,
      // A message cut by a crash may have gone out: recorded as unknown, never sent twice.
      'unknown',
      async () => {
        if (await isOptedOut(db, ticket.mode, digest)) return { delivered: false, detail: OPTED_OUT_DETAIL };
        if (simulate) {
          await this.record(request, 'delivered', null, null);
          return { delivered: true, detail: SIMULATED_DETAIL };
        }
        const session = await inSession(db, ticket.mode, digest, clock.now());
        const sender = this.sender!;
        const result = await sender.send({
          to: `whatsapp:${phone}`,
          body: ringTexts(branch?.settings.customer_page.language ?? 'en').sms(ticket.displayNumber, shop, link),
          // Outside the window only an approved template is delivered (Twilio's error 63016 otherwise).
          ...(session ? {} : { template: { sid: sender.readyTemplate, variables: { 1: ticket.displayNumber, 2: shop, 3: link } } }),
          statusCallback: smsStatusCallbackUrl(this.deps.publicUrl, request.ringId),
        });
        if (!result.accepted) this.deps.log.warn({ status: result.status, detail: result.detail }, 'WhatsApp provider refused a ring');
        await this.record(request, result.accepted ? 'queued' : 'failed', result.errorCode ?? null, result.sid ?? null);
        return { delivered: result.accepted, detail: result.accepted && !session ? TEMPLATE_DETAIL : result.detail };
      },
    );
    if (outcome === null) return { channel: 'whatsapp', delivered: false, detail: 'pending', pending: true };
    return { channel: 'whatsapp', delivered: outcome.delivered, detail: outcome.detail };
  }

  /** The message's first status, in SMS's records under its own id; its receipts follow. */
  private async record(request: RingRequest, status: SmsStatus, errorCode: string | null, providerSid: string | null): Promise<void> {
    const { ticket } = request;
    await recordSms(this.deps, {
      ringId: whatsappRecordId(request.ringId),
      ticketId: ticket.id,
      branchId: ticket.branchId,
      mode: ticket.mode,
      seq: request.seq,
      status,
      errorCode,
      providerSid,
      at: this.deps.clock.now(),
    }).catch((err: unknown) => this.deps.log.warn({ err: (err as Error).message }, 'WhatsApp status not recorded'));
  }
}
