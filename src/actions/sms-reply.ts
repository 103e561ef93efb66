// A customer's text back to a ring's SMS (decision 0026): "1"/"OK"/"on my way" is "On my way",
// "5"/"later" is "Need 5 more minutes", STOP and START opt the number out of and back into texts,
// HELP (and anything else) is answered with the shop's name and what to reply. The provider's
// inbound webhook and the test helper both come here, and "On my way" and the snooze go through
// the customer's own action, so the POS gets the same events as from the page, with `via: "sms"`.
import type { Action, Ctx } from '../core/ctx.ts';
import type { Ticket } from '../core/ticket.ts';
import type { RingBranch } from '../core/ring.ts';
import type { AnswerChannel } from '../core/channel-catalogue.ts';
import { AppError } from '../domain/errors.ts';
import { SMS_SNOOZE_MINUTES, type SmsVerb } from '../domain/sms-reply.ts';
import { firstInbound, optIn, optOut } from '../store/sms-opt-outs.ts';
import { NO_OPEN_ORDER_TEXT, smsReplyTexts } from '../i18n/sms-reply-texts.ts';
import { shortBranchName } from '../i18n/ring-texts.ts';
import { recordCustomerAction } from './customer-action.ts';

/** The open ticket the reply answers, with the context its customer acts in. */
export type SmsReplyTarget = { ctx: Ctx; ticket: Ticket; branch: RingBranch };

export type SmsReplyInput = {
  verb: SmsVerb;
  /** The sender's phone digest (channels/sms/phone-digest.ts), computed before the transaction. */
  digest: string;
  /** null: no open ticket was texted at that number. */
  target: SmsReplyTarget | null;
  /** The provider's id of the inbound message: a second delivery of it does nothing. */
  messageSid?: string;
  /** The paid channel it came through (an event's `via`): SMS unless said otherwise (WhatsApp, decision 0091). */
  via?: AnswerChannel;
  now: number;
};

/** What kind of text the reply is answered with (each has its own cap: sms-reply-budget.ts). */
export type SmsAnswer = 'help' | 'no_order' | 'confirmation';

export type SmsReplyResult = {
  understoodAs: SmsVerb;
  /** The text sent back (TwiML), or null for none. */
  reply: string | null;
  /** Its kind; null with no text. */
  answer: SmsAnswer | null;
  /** The ticket after the reply (unchanged when the reply changed nothing). */
  ticket: Ticket | null;
  /** The provider delivered this message before: nothing was done again, and nothing is answered. */
  duplicate: boolean;
};

/**
 * Run in the ctx of the target's customer (`target.ctx`); with no target, in a system ctx of the
 * mode the text came in (live from the provider, test from the test helper).
 */
export const answerSmsReply: Action<SmsReplyInput, SmsReplyResult> = async ({ ctx, input }) => {
  const { verb, target } = input;
  const { tx } = ctx;
  const result = (reply: string | null, answer: SmsAnswer | null = null, ticket = target?.ticket ?? null): SmsReplyResult => ({
    understoodAs: verb,
    reply,
    answer: reply === null ? null : answer,
    ticket,
    duplicate: false,
  });
  if (input.messageSid !== undefined && !(await firstInbound(tx, input.messageSid, input.now))) {
    return { ...result(null), duplicate: true };
  }
  // The carriers' keywords work whatever ticket there is, or none: they are about the number.
  if (verb === 'stop') {
    await optOut(tx, ctx.mode, input.digest, input.now);
    return result(null);
  }
  if (verb === 'start') {
    await optIn(tx, ctx.mode, input.digest);
    return result(null);
  }
  if (target === null) return result(NO_OPEN_ORDER_TEXT, 'no_order');
  const texts = smsReplyTexts(target.branch.settings.customer_page.language);
  const shop = shortBranchName(target.branch.name);
  const number = target.ticket.displayNumber;
  if (verb !== 'acknowledge' && verb !== 'snooze') return result(texts.help(shop, number), 'help');
  try {
    const { ticket } = await recordCustomerAction({
      ctx,
      input: {
        ticketId: target.ticket.id,
        action: verb,
        via: input.via ?? 'sms',
        ...(verb === 'snooze' ? { minutes: SMS_SNOOZE_MINUTES } : {}),
      },
    });
    return result(
      verb === 'acknowledge' ? texts.acknowledged(shop, number) : texts.snoozed(shop, number, SMS_SNOOZE_MINUTES),
      'confirmation',
      ticket,
    );
  } catch (err) {
    // The ticket closed or changed since it was found: nothing to acknowledge; say what works.
    if (err instanceof AppError && (err.code === 'ticket-state-conflict' || err.code === 'not-found'))
      return result(texts.help(shop, number), 'help');
    throw err;
  }
};
