// What every paid message channel does with a ring (SMS, WhatsApp: the same provider and records,
// decision 0091): no phone, no send; test mode never calls the provider and records a simulated
// send, delivered at once; live mode without the channel's provider says so; the send happens once
// per ring (send-once.ts: a send cut by a crash may have gone out, so it is recorded as unknown,
// never sent again), never to a number that texted STOP, in the branch's language; and the
// message's first status goes to SMS's records under the channel's record id, its receipts following.
// What differs between the channels is only how the message is sent: `send`.
import type { FastifyBaseLogger as Logger } from 'fastify';
import { SIMULATED_DETAIL } from '../ringer.ts';
import type { ChannelAttempt, RingRequest } from '../../core/ring.ts';
import type { Db } from '../../core/db.ts';
import type { Clock } from '../../core/clock.ts';
import type { Bus } from '../../core/bus.ts';
import type { Metrics } from '../../core/metrics.ts';
import type { SmsStatus } from '../../core/ticket.ts';
import type { PaidChannel } from '../../core/channel-catalogue.ts';
import { getBranch } from '../../store/tenancy.ts';
import { isOptedOut } from '../../store/sms-opt-outs.ts';
import { ticketUrl } from '../../contract/present.ts';
import { ringTexts, shortBranchName } from '../../i18n/ring-texts.ts';
import { sendOnce } from '../send-once.ts';
import { phoneDigest } from './phone-digest.ts';
import { recordSms } from './receipts.ts';
import type { SmsSendResult } from './provider.ts';

export type PaidMessageDeps = { db: Db; bus: Bus; clock: Clock; log: Logger; publicUrl: string; sendTimeoutMs: number; metrics?: Metrics };

/** Said in the ring's record when the number texted STOP. */
export const OPTED_OUT_DETAIL = 'opted out (the customer texted STOP)';

/** The message a ring sends, as a channel's `send` gets it. */
export type PaidMessage = { phone: string; digest: string; text: string; shop: string; link: string };

export type PaidMessageSpec = {
  channel: PaidChannel;
  /** How logs name it ("SMS", "WhatsApp"). */
  label: string;
  /** Its records' id for the ring (SMS's records hold every paid message). */
  recordId: string;
  /** false: its provider is not configured; a live ring then says `notConfigured`. */
  configured: boolean;
  notConfigured: string;
  /** Sends the message (live mode only); `detail`, what the ring's attempt says when it differs from the provider's. */
  send(message: PaidMessage): Promise<{ result: SmsSendResult; detail?: string }>;
};

export async function ringPaidMessage(
  deps: PaidMessageDeps,
  request: RingRequest,
  signal: AbortSignal,
  spec: PaidMessageSpec,
): Promise<ChannelAttempt> {
  const { ticket } = request;
  const { channel } = spec;
  const phone = ticket.customerPhone;
  if (phone === null) return { channel, delivered: false, detail: 'no phone number' };
  const simulate = !request.livemode;
  if (!simulate && !spec.configured) return { channel, delivered: false, detail: spec.notConfigured };
  const { db, clock } = deps;
  const digest = await phoneDigest(db, phone, clock.now());
  const branch = request.first?.branch ?? (await getBranch(db, ticket.branchId));
  const shop = shortBranchName(branch?.name ?? 'readybell');
  const link = ticketUrl(deps.publicUrl, ticket.token);
  const text = ringTexts(branch?.settings.customer_page.language ?? 'en').sms(ticket.displayNumber, shop, link);
  // The target is "the ticket's phone", not the number: the send record outlives nothing personal
  // (and the number is erased when the ticket closes).
  const outcome = await sendOnce(deps, { ringId: request.ringId, channel, target: 'phone' }, ticket.id, signal, 'unknown', async () => {
    // Asked by the claim's owner, so the answer is recorded with the claim: an attempt that asks
    // again later reads what was done then, even if the customer texted STOP in between.
    if (await isOptedOut(db, ticket.mode, digest)) return { delivered: false, detail: OPTED_OUT_DETAIL };
    if (simulate) {
      await record(deps, request, spec, 'delivered', null, null);
      return { delivered: true, detail: SIMULATED_DETAIL };
    }
    const { result, detail } = await spec.send({ phone, digest, text, shop, link });
    if (!result.accepted) deps.log.warn({ status: result.status, detail: result.detail }, `${spec.label} provider refused a ring`);
    await record(deps, request, spec, result.accepted ? 'queued' : 'failed', result.errorCode ?? null, result.sid ?? null);
    return { delivered: result.accepted, detail: detail ?? result.detail };
  });
  if (outcome === null) return { channel, delivered: false, detail: 'pending', pending: true };
  return { channel, delivered: outcome.delivered, detail: outcome.detail };
}

/** The message's first status (its receipts follow); a failure to record it never changes what the send did. */
async function record(
  deps: PaidMessageDeps,
  request: RingRequest,
  spec: PaidMessageSpec,
  status: SmsStatus,
  errorCode: string | null,
  providerSid: string | null,
): Promise<void> {
  const { ticket } = request;
  await recordSms(deps, {
    ringId: spec.recordId,
    ticketId: ticket.id,
    branchId: ticket.branchId,
    mode: ticket.mode,
    seq: request.seq,
    status,
    errorCode,
    providerSid,
    at: deps.clock.now(),
  }).catch((err: unknown) => deps.log.warn({ err: (err as Error).message }, `${spec.label} status not recorded`));
}
