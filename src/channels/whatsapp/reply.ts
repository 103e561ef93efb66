// A customer's WhatsApp message (decision 0091): read and answered as a text back to an SMS is
// ("1", "5", STOP …, with the same reply budget), with `via: "whatsapp"`; and any message opens the
// number's 24-hour window, in which the next ring's message may be free-form.
import type { Action } from '../../core/ctx.ts';
import { answerSmsReply, type SmsReplyInput, type SmsReplyResult } from '../../actions/sms-reply.ts';
import { openSession } from './session.ts';

export const answerWhatsAppReply: Action<SmsReplyInput, SmsReplyResult> = async (args) => {
  await openSession(args.ctx.tx, args.ctx.mode, args.input.digest, args.input.now);
  return answerSmsReply({ ...args, input: { ...args.input, via: 'whatsapp' } });
};
