// POST /v1/test_helpers/tickets/{id}/sms_reply: test mode's stand-in for a customer texting back
// to a ring's SMS (decision 0026). It takes the same path as the provider's inbound webhook
// (answerSmsReply), so "1" acknowledges with `via: "sms"`, "5" snoozes, STOP opts the ticket's
// number out of test mode's texts, and the answer shows what readybell would text back.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../../core/ctx.ts';
import { answerSmsReply } from '../../../actions/sms-reply.ts';
import { presentTicket } from '../../../contract/present.ts';
import { phoneDigest } from '../../../channels/sms/phone-digest.ts';
import { AppError } from '../../../domain/errors.ts';
import { readSmsReply, SMS_VERBS } from '../../../domain/sms-reply.ts';
import { readTextedTicket } from '../../../actions/sms-lookup.ts';
import { EXAMPLE_TICKETS } from '../../../contract/example-objects.ts';
import { operation, typed } from '../../operation.ts';
import { IdParam, Nullable, StringEnum } from '../../../contract/schema-parts.ts';
import { runWrite } from '../../write.ts';
import { ctxFor } from './context.ts';
import { ticketIdFrom } from './context.ts';

/** A text is at most 10 concatenated segments in practice; longer is not a reply. */
const MAX_TEXT = 1600;

const SmsReplySchema = Type.Object(
  {
    object: Type.Literal('sms_reply'),
    understood_as: StringEnum(SMS_VERBS, {
      description:
        '`acknowledge` ("On my way": `1`, `OK`, …), `snooze` (5 more minutes: `5`, `later`, …), `stop` (no more texts to the number), ' +
        '`start` (texts again), `help`, or `unrecognised` (answered like `help`)',
    }),
    reply: Nullable(
      Type.String({
        description: 'What readybell texts back; null for none (STOP and START are confirmed by the SMS provider itself)',
        examples: ['Demo Café: thanks, see you at the counter (A-42).'],
      }),
    ),
    ticket: Type.Ref('Ticket', { description: 'The ticket after the reply' }),
  },
  { description: "What a customer's text back did" },
);

export function registerSmsTestHelper(fastify: FastifyInstance, services: Services): void {
  const app = typed(fastify);
  const { db, clock, config } = services;
  app.post(
    '/test_helpers/tickets/:id/sms_reply',
    {
      schema: operation({
        operationId: 'replyToTextAsCustomer',
        tag: 'Test helpers',
        summary: 'Text back as the customer',
        description:
          "Test mode only: does exactly what the customer's text back to the ticket's SMS does in live mode, events and webhooks included. " +
          'The ticket needs a `customer_phone` and a text already sent (a ring by SMS: business plan; test mode simulates it). ' +
          '`1`, `OK` or "on my way" (in any language of the customer page) is `ticket.customer_acknowledged`, `5` or "later" is `ticket.customer_snoozed` for 5 minutes, ' +
          'both with `data.via: "sms"`; `STOP` stops test mode\'s texts to that number (until `START`); `HELP` answers with the shop\'s name.',
        params: Type.Object({ id: IdParam('ticket') }),
        body: Type.Object(
          {
            body: Type.String({ minLength: 1, maxLength: MAX_TEXT, description: 'The text the customer sends', examples: ['1'] }),
          },
          { additionalProperties: false },
        ),
        answers: {
          200: {
            description: 'What the reply did and what readybell texts back',
            schema: SmsReplySchema,
            example: {
              object: 'sms_reply',
              understood_as: 'acknowledge',
              reply: 'Demo Café: thanks, see you at the counter (A-42).',
              ticket: { ...EXAMPLE_TICKETS.acknowledged, sms_status: 'delivered' },
            },
          },
        },
        problems: {
          forbidden: 'A live key: test helpers never touch live tickets.',
          'not-found': 'No such ticket.',
          conflict: 'No text was sent for this open ticket yet (no `customer_phone`, no ring by SMS, or the ticket is closed).',
        },
      }),
      preValidation: async (req: FastifyRequest) => {
        if (req.auth?.mode !== 'test')
          throw new AppError('forbidden', 'Test helpers work only with a test key (rk_test_…); they never touch live tickets.');
      },
    },
    async (req, reply) => {
      const { id } = req.params;
      const { body: text } = req.body;
      ticketIdFrom(id);
      const ctx = ctxFor(req, services);
      const { ticket, branch, phone } = await readTextedTicket({ ctx, input: { id } });
      const verb = readSmsReply(text);
      const digest = await phoneDigest(db, phone, clock.now());
      return runWrite(req, reply, ctx, {
        status: 200,
        verb: answerSmsReply,
        input: { verb, digest, target: { ctx, ticket, branch }, now: clock.now() },
        present: (result) => ({
          object: 'sms_reply' as const,
          understood_as: result.understoodAs,
          reply: result.reply,
          ticket: presentTicket(result.ticket ?? ticket, config.publicUrl),
        }),
      });
    },
  );
}
