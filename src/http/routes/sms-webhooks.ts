// The SMS provider's webhooks (decision 0026), to be configured at the provider:
// - POST /sms/inbound: a customer's text back ("1", "5", STOP, HELP …), answered with TwiML;
// - POST /sms/status/<ring id>: a text's delivery receipts; readybell gives this URL with every
//   send (StatusCallback), so the ring's id comes back signed and names the text.
// WhatsApp comes through the same provider account and the same two webhooks (decision 0091): its
// addresses are `whatsapp:+…`, which is how a message or a receipt of it is told from a text's.
// Both are form-encoded and signed like Twilio's (X-Twilio-Signature over the public URL and the
// parameters, keyed with SMS_AUTH_TOKEN). Anything not signed so is a 403 problem and changes
// nothing. Numbers and message texts are never logged.
import { Type } from 'typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../../core/ctx.ts';
import { answerSmsReply } from '../../actions/sms-reply.ts';
import { noBranchCtx } from '../../actions/system-ctx.ts';
import { write } from '../../write/idempotent-write.ts';
import { ringOfText, smsReplyTarget } from '../../actions/sms-lookup.ts';
import { phoneDigest } from '../../channels/sms/phone-digest.ts';
import { recordSms } from '../../channels/sms/receipts.ts';
import type { SmsConfig } from '../../core/config.ts';
import { AppError } from '../../domain/errors.ts';
import { isId } from '../../domain/ids.ts';
import { readSmsReply } from '../../domain/sms-reply.ts';
import { smsStatusFromProvider } from '../../domain/sms-status.ts';
import { formParams, validTwilioSignature, type FormParams } from '../../domain/twilio-signature.ts';
import { hidden, typed } from '../operation.ts';
import { answerWhatsAppReply } from '../../channels/whatsapp/reply.ts';
import { whatsappNumber, whatsappRecordId } from '../../channels/whatsapp/records.ts';
import type { RateLimiter } from '../../realtime/limiter.ts';
import { smsReplyBudget } from './sms-reply-budget.ts';

export const SMS_INBOUND_PATH = '/sms/inbound';
export const SMS_STATUS_PATH = '/sms/status';

const E164 = /^\+[1-9]\d{6,14}$/;
const first = (params: FormParams, name: string): string | undefined => params.get(name)?.[0];

const twiml = (reply: FastifyReply, message: string | null): FastifyReply => {
  const escaped = message?.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const body = escaped === undefined ? '<Response/>' : `<Response><Message>${escaped}</Message></Response>`;
  return reply.type('text/xml; charset=utf-8').header('cache-control', 'no-store').send(`<?xml version="1.0" encoding="UTF-8"?>${body}`);
};

export function registerSmsWebhooks(app: FastifyInstance, services: Services, limiter: RateLimiter): void {
  const { db, clock, config } = services;
  const budget = smsReplyBudget(limiter, services.metrics);

  /** The request's parameters, once its signature holds; otherwise a 403 problem. */
  const signed = (req: FastifyRequest): { sms: SmsConfig; params: FormParams } => {
    // WhatsApp uses the SMS provider's account: either one's token verifies the provider.
    const sms = config.sms ?? config.whatsapp;
    if (sms === null)
      throw new AppError(
        'forbidden',
        'This service has no SMS provider configured (SMS_ACCOUNT_SID, SMS_AUTH_TOKEN, SMS_FROM or WHATSAPP_FROM), so no webhook of one can be verified.',
      );
    const params = formParams(typeof req.body === 'string' ? req.body : '');
    const header = req.headers['x-twilio-signature'];
    // The URL the provider was given: the public URL and the path and query as they arrived.
    if (!validTwilioSignature(sms.authToken, typeof header === 'string' ? header : undefined, `${config.publicUrl}${req.url}`, params)) {
      throw new AppError(
        'forbidden',
        'The request is not signed by the SMS provider: X-Twilio-Signature is missing or does not match the URL and parameters.',
      );
    }
    // Signed with our token, so from our account; a mismatch would be a provider's error.
    const account = first(params, 'AccountSid');
    if (account !== undefined && account !== sms.accountSid) throw new AppError('forbidden', 'The webhook is for another SMS account.');
    return { sms, params };
  };

  app.register(async (plain) => {
    const scope = typed(plain);
    // The signature covers every parameter, a repeated one included: the raw form is kept and read
    // here, not by the server's form parser (which keeps one value per name).
    scope.removeContentTypeParser('application/x-www-form-urlencoded');
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => done(null, body));
    const hide = { schema: hidden() };
    const ofRing = { schema: hidden({ params: Type.Object({ ringId: Type.String() }) }) };

    scope.post(SMS_INBOUND_PATH, hide, async (req, reply) => {
      const { sms, params } = signed(req);
      const from = first(params, 'From') ?? '';
      const whatsapp = whatsappNumber(from);
      // A WhatsApp message to a service that has no WhatsApp sender is nobody's to answer.
      if (whatsapp !== null && config.whatsapp === null) return twiml(reply, null);
      const phone = whatsapp ?? from;
      // A short code or an alphanumeric sender cannot be a customer texted by a ring.
      if (!E164.test(phone)) return twiml(reply, null);
      const now = clock.now();
      const verb = readSmsReply(first(params, 'Body') ?? '');
      const digest = await phoneDigest(db, phone, now);
      const target = await smsReplyTarget(services, phone, String(req.id));
      const messageSid = first(params, 'MessageSid') ?? first(params, 'SmsSid');
      const result = await write(target?.ctx ?? noBranchCtx(services, 'live', 'sms-reply'), {
        verb: whatsapp === null ? answerSmsReply : answerWhatsAppReply,
        input: { verb, digest, target, now, ...(messageSid === undefined ? {} : { messageSid }) },
      });
      // A second delivery of one message was neither acted on nor answered: nothing to count.
      const send =
        !result.duplicate && (await budget.allow('live', digest, result.answer, now, whatsapp === null ? sms.from : config.whatsapp!.from));
      req.log.info(
        { understood_as: result.understoodAs, ticket: result.ticket?.id ?? null, duplicate: result.duplicate, answered: send },
        whatsapp === null ? 'SMS reply' : 'WhatsApp reply',
      );
      return twiml(reply, send ? result.reply : null);
    });

    scope.post(`${SMS_STATUS_PATH}/:ringId`, ofRing, async (req, reply) => {
      const { params } = signed(req);
      const { ringId } = req.params;
      const status = smsStatusFromProvider(first(params, 'MessageStatus') ?? first(params, 'SmsStatus') ?? '');
      if (status === null || !isId('ring', ringId)) return reply.code(204).send();
      // The ring's row may be gone with its ticket's retention; the text's record says the rest.
      const ring = await ringOfText(services, ringId);
      if (ring === undefined) return reply.code(204).send();
      const errorCode = first(params, 'ErrorCode');
      // A WhatsApp message's receipt names its record, which sits beside the ring's text's.
      const whatsapp = whatsappNumber(first(params, 'To')) !== null || first(params, 'ChannelPrefix') === 'whatsapp';
      await recordSms(services, {
        ringId: whatsapp ? whatsappRecordId(ringId) : ringId,
        ticketId: ring.ticketId,
        branchId: ring.branchId,
        mode: ring.mode,
        seq: ring.seq,
        status,
        errorCode: errorCode === undefined || errorCode === '' ? null : errorCode,
        providerSid: first(params, 'MessageSid') ?? null,
        at: clock.now(),
      });
      req.log.info({ ring: ringId, sms_status: status, whatsapp }, 'SMS status');
      return reply.code(204).send();
    });
  });
}
