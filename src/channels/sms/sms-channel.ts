// The `sms` channel. The ring policy decides whether it is used at all (business plan, phone
// given, branch setting on, and neither push nor page reached the customer); this channel sends
// once per ring, in the branch's language, never to a number that texted STOP, and tells the
// provider where to report the text's delivery (decision 0026). Test mode never calls a
// provider: it records a simulated send, delivered at once, so an integrator can see what live
// mode would do.
import type { FastifyBaseLogger as Logger } from 'fastify';
import { SIMULATED_DETAIL, type Channel } from '../ringer.ts';
import type { ChannelAttempt, RingRequest } from '../../core/ring.ts';
import type { Db } from '../../core/db.ts';
import type { Clock } from '../../core/clock.ts';
import { getBranch } from '../../store/tenancy.ts';
import { ticketUrl } from '../../contract/present.ts';
import { ringTexts, shortBranchName } from '../../i18n/ring-texts.ts';
import { sendOnce } from '../send-once.ts';
import type { Metrics } from '../../core/metrics.ts';
import type { Bus } from '../../core/bus.ts';
import type { SmsProvider } from './provider.ts';
import { phoneDigest } from './phone-digest.ts';
import { recordSms } from './receipts.ts';
import { isOptedOut, optOut } from '../../store/sms-opt-outs.ts';
import type { SmsStatus } from '../../core/ticket.ts';

export type SmsDeps = { db: Db; bus: Bus; clock: Clock; log: Logger; publicUrl: string; sendTimeoutMs: number; metrics?: Metrics };

/** The provider's status callbacks for a ring's text: the ring's id names the text (src/http/routes/sms-webhooks.ts). */
export const smsStatusCallbackUrl = (publicUrl: string, ringId: string): string => `${publicUrl}/sms/status/${ringId}`;

/** Twilio's error for a number that opted out of texts from the sender (21610). */
const UNSUBSCRIBED_RECIPIENT = '21610';

/** Said in the ring's record when the number texted STOP. */
export const OPTED_OUT_DETAIL = 'opted out (the customer texted STOP)';

export class SmsChannel implements Channel {
  readonly name = 'sms' as const;
  private readonly deps: SmsDeps;
  /** null: no provider configured; live rings then report "not configured". */
  private readonly provider: SmsProvider | null;

  constructor(deps: SmsDeps, provider: SmsProvider | null) {
    this.deps = deps;
    this.provider = provider;
  }

  async ring(request: RingRequest, signal: AbortSignal): Promise<ChannelAttempt> {
    const { ticket } = request;
    const phone = ticket.customerPhone;
    if (phone === null) return { channel: 'sms', delivered: false, detail: 'no phone number' };
    const simulate = !request.livemode;
    if (!simulate && this.provider === null) return { channel: 'sms', delivered: false, detail: 'no SMS provider configured' };
    const { db, clock } = this.deps;
    const digest = await phoneDigest(db, phone, clock.now());
    const branch = request.first?.branch ?? (await getBranch(this.deps.db, ticket.branchId));
    const body = ringTexts(branch?.settings.customer_page.language ?? 'en').sms(
      ticket.displayNumber,
      shortBranchName(branch?.name ?? 'readybell'),
      ticketUrl(this.deps.publicUrl, ticket.token),
    );
    // The target is "the ticket's phone", not the number: the send record outlives nothing
    // personal (and the number is erased when the ticket closes).
    // A message whose send was cut by a crash may have gone out, and a phone shows a second one:
    // it is recorded as unknown, never sent again.
    const outcome = await sendOnce(
      this.deps,
      { ringId: request.ringId, channel: 'sms', target: 'phone' },
      ticket.id,
      signal,
      'unknown',
      async () => {
        // Asked by the claim's owner, so the answer is recorded with the claim: an attempt that asks
        // again later reads what was done then, even if the customer texted STOP in between.
        if (await isOptedOut(db, ticket.mode, digest)) return { delivered: false, detail: OPTED_OUT_DETAIL };
        if (simulate) {
          await this.record(request, 'delivered', null, null);
          return { delivered: true, detail: SIMULATED_DETAIL };
        }
        const result = await this.provider!.send({
          to: phone,
          body,
          statusCallback: smsStatusCallbackUrl(this.deps.publicUrl, request.ringId),
        });
        if (!result.accepted) this.deps.log.warn({ status: result.status, detail: result.detail }, 'SMS provider refused a ring');
        await this.record(request, result.accepted ? 'queued' : 'failed', result.errorCode ?? null, result.sid ?? null);
        // The provider knew of a STOP readybell never saw (sent before this service had the number, or
        // to the provider's console): remembered, so the next ring does not try again.
        if (result.errorCode === UNSUBSCRIBED_RECIPIENT)
          await db.write((tx) => optOut(tx, ticket.mode, digest, clock.now())).catch(() => {});
        return { delivered: result.accepted, detail: result.detail };
      },
    );
    if (outcome === null) return { channel: 'sms', delivered: false, detail: 'pending', pending: true };
    return { channel: 'sms', delivered: outcome.delivered, detail: outcome.detail };
  }

  /** The text's first status (its receipts follow); a failure to record it never changes what the send did. */
  private async record(request: RingRequest, status: SmsStatus, errorCode: string | null, providerSid: string | null): Promise<void> {
    const { ticket } = request;
    await recordSms(this.deps, {
      ringId: request.ringId,
      ticketId: ticket.id,
      branchId: ticket.branchId,
      mode: ticket.mode,
      seq: request.seq,
      status,
      errorCode,
      providerSid,
      at: this.deps.clock.now(),
    }).catch((err: unknown) => this.deps.log.warn({ err: (err as Error).message }, 'SMS status not recorded'));
  }
}
