// The `sms` channel. The ring policy decides whether it is used at all (business plan, phone
// given, branch setting on, and neither push nor page reached the customer); this channel sends
// once per ring, in the branch's language, never to a number that texted STOP, and tells the
// provider where to report the text's delivery (decision 0026). Test mode never calls a
// provider: it records a simulated send, delivered at once, so an integrator can see what live
// mode would do.
import type { Channel } from '../ringer.ts';
import type { ChannelAttempt, RingRequest } from '../../core/ring.ts';
import type { SmsProvider } from './provider.ts';
import { optOut } from '../../store/sms-opt-outs.ts';
import { type PaidMessageDeps, ringPaidMessage } from './paid-message.ts';

export { OPTED_OUT_DETAIL } from './paid-message.ts';

export type SmsDeps = PaidMessageDeps;

/** The provider's status callbacks for a ring's text: the ring's id names the text (src/http/routes/sms-webhooks.ts). */
export const smsStatusCallbackUrl = (publicUrl: string, ringId: string): string => `${publicUrl}/sms/status/${ringId}`;

/** Twilio's error for a number that opted out of texts from the sender (21610). */
const UNSUBSCRIBED_RECIPIENT = '21610';

export class SmsChannel implements Channel {
  readonly name = 'sms' as const;
  private readonly deps: SmsDeps;
  /** null: no provider configured; live rings then report "not configured". */
  private readonly provider: SmsProvider | null;

  constructor(deps: SmsDeps, provider: SmsProvider | null) {
    this.deps = deps;
    this.provider = provider;
  }

  ring(request: RingRequest, signal: AbortSignal): Promise<ChannelAttempt> {
    const { db, clock } = this.deps;
    return ringPaidMessage(this.deps, request, signal, {
      channel: 'sms',
      label: 'SMS',
      recordId: request.ringId,
      configured: this.provider !== null,
      notConfigured: 'no SMS provider configured',
      send: async ({ phone, digest, text }) => {
        const result = await this.provider!.send({
          to: phone,
          body: text,
          statusCallback: smsStatusCallbackUrl(this.deps.publicUrl, request.ringId),
        });
        // The provider knew of a STOP readybell never saw (sent before this service had the number, or
        // to the provider's console): remembered, so the next ring does not try again.
        if (result.errorCode === UNSUBSCRIBED_RECIPIENT)
          await db.write((tx) => optOut(tx, request.ticket.mode, digest, clock.now())).catch(() => {});
        return { result };
      },
    });
  }
}
