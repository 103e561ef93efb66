// The `sms` channel. The ring policy decides whether it is used at all (business plan, phone
// given, branch setting on, and neither push nor page reached the customer); this channel sends
// once per ring, in the branch's language. Test mode never calls a provider: it records a
// simulated send and reports it, so an integrator can see what live mode would do.
import type { FastifyBaseLogger as Logger } from 'fastify';
import { SIMULATED_DETAIL, type Channel, type ChannelAttempt, type RingRequest } from '../ringer.ts';
import type { Db } from '../../store/db.ts';
import type { Clock } from '../../actions/ctx.ts';
import { getBranch } from '../../store/tenancy.ts';
import { ticketUrl } from '../../actions/present.ts';
import { ringTexts, shortBranchName } from '../ring-texts.ts';
import { sendOnce, type SendOnceDeps } from '../send-once.ts';
import type { Metrics } from '../../metrics.ts';
import type { SmsProvider } from './provider.ts';

export type SmsDeps = { db: Db; clock: Clock; log: Logger; publicUrl: string; sendTimeoutMs: number; metrics?: Metrics };

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
        if (simulate) return { delivered: true, detail: SIMULATED_DETAIL };
        const result = await this.provider!.send({ to: phone, body });
        if (!result.accepted) this.deps.log.warn({ status: result.status, detail: result.detail }, 'SMS provider refused a ring');
        return { delivered: result.accepted, detail: result.detail };
      },
    );
    if (outcome === null) return { channel: 'sms', delivered: false, detail: 'pending', pending: true };
    return { channel: 'sms', delivered: outcome.delivered, detail: outcome.detail };
  }
}
