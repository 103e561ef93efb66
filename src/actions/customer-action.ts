// What a customer does on the ticket page (PRODUCT.md §10): first view, notifications on (push,
// or SMS with the phone number the customer typed), "On my way" and "Need N more minutes". The
// test helpers call the same action, so an integrator's test sees exactly what a real customer
// would cause.
import type { Action, TxCtx } from '../core/ctx.ts';
import { AppError, invalid, notFound } from '../domain/errors.ts';
import { parseCustomerPhone, phoneEntryOffered, type PhoneProblem } from '../domain/customer-phone.ts';
import { getBranch } from '../store/tenancy.ts';
import { nextStatus, type TicketOperation } from '../domain/ticket-state.ts';
import { getTicket, transitionTicket, type TicketChange } from '../store/tickets.ts';
import type { Ticket } from '../core/ticket.ts';
import { presentTicket } from '../contract/present.ts';
import { recordEvent } from './record-event.ts';
import { publishTicket } from './publish.ts';
import { stateConflict } from '../domain/ticket-state.ts';
import { scheduleSnoozeEnd } from './ring-schedule.ts';
import { countTicketChange, customerAnswer } from '../store/insights-rollups.ts';
import { SNOOZE_MINUTES, type CustomerVia } from '../domain/customer-answer.ts';
import type { SubscribeChannel } from '../core/channel-catalogue.ts';

// The answers' bounds and channels are domain facts; re-exported for this action's callers.

export type CustomerActionName = 'view' | 'subscribe' | 'acknowledge' | 'snooze';
export const CUSTOMER_ACTIONS: readonly CustomerActionName[] = ['view', 'subscribe', 'acknowledge', 'snooze'];

export type CustomerActionInput = {
  ticketId: string;
  action: CustomerActionName;
  /** snooze only */
  minutes?: number;
  /** subscribe only: which channel was turned on */
  channel?: SubscribeChannel;
  /** subscribe by SMS only: the number as the customer typed it */
  phone?: string;
  /** acknowledge and snooze: how the customer answered, their page (the default) or a text back (decision 0026) */
  via?: CustomerVia;
};

const PHONE_PROBLEMS: Record<PhoneProblem, string> = {
  invalid: 'This is not a valid phone number.',
  'needs-country-code': 'Start the number with + and the country code.',
  'not-mobile': 'This number cannot receive texts; give a mobile number.',
};

/**
 * The E.164 number of a customer's "text me": refused (403) where the branch does not offer it,
 * 422 with `phone_problem` when it is not a number a text can reach.
 */
async function customerPhone(ctx: TxCtx, raw: string | undefined): Promise<string> {
  const branch = await getBranch(ctx.tx, ctx.branchId);
  const offered =
    branch !== undefined &&
    phoneEntryOffered({
      settings: branch.settings,
      plan: ctx.plan,
      livemode: ctx.mode === 'live',
      configured: (channel) => ctx.services.config[channel] !== null,
    });
  if (!offered) throw new AppError('forbidden', 'This shop does not take phone numbers on its customer page.');
  const parsed = parseCustomerPhone(raw ?? '', branch!.settings.customer_page.phone_country);
  if (!parsed.ok) {
    throw new AppError('validation-failed', PHONE_PROBLEMS[parsed.problem], {
      errors: [{ pointer: '/phone', detail: PHONE_PROBLEMS[parsed.problem] }],
      phone_problem: parsed.problem,
    });
  }
  return parsed.e164;
}

const OPERATION: Record<CustomerActionName, TicketOperation> = {
  view: 'customer_view',
  subscribe: 'customer_subscribe',
  acknowledge: 'customer_acknowledge',
  snooze: 'customer_snooze',
};

const EVENT: Record<CustomerActionName, string> = {
  view: 'ticket.customer_viewed',
  subscribe: 'ticket.customer_subscribed',
  acknowledge: 'ticket.customer_acknowledged',
  snooze: 'ticket.customer_snoozed',
};

/** Returns the ticket and whether anything changed (a second "view" records nothing). */
export const recordCustomerAction: Action<CustomerActionInput, { ticket: Ticket; changed: boolean }> = async ({ ctx, input }) => {
  const { tx } = ctx;
  const now = ctx.services.clock.now();
  const current = await getTicket(tx, ctx.branchId, ctx.mode, input.ticketId);
  if (current === undefined) throw notFound('ticket');
  const op = OPERATION[input.action];
  if (nextStatus(current.status, op) === null) throw stateConflict(input.action === 'view' ? 'view' : input.action, current.status);

  let change: TicketChange | null = null;
  const data: Record<string, unknown> = {};
  switch (input.action) {
    case 'view':
      if (current.viewedAt === null) change = { viewedAt: now };
      break;
    case 'subscribe': {
      const channel = input.channel ?? 'push';
      if (current.notifications !== channel) change = { notifications: channel };
      if (channel === 'sms') {
        // Stored where the POS's customer_phone is: used for this ticket's texts only, and
        // erased when the ticket closes.
        const phone = await customerPhone(ctx, input.phone);
        if (phone !== current.customerPhone) change = { ...change, customerPhone: phone };
      }
      data.channel = channel;
      break;
    }
    case 'acknowledge':
      if (current.acknowledgedAt === null || (current.lastRingAt !== null && current.acknowledgedAt < current.lastRingAt)) {
        change = { acknowledgedAt: now, snoozedUntil: null };
      }
      data.via = input.via ?? 'page';
      break;
    case 'snooze': {
      const minutes = input.minutes ?? SNOOZE_MINUTES.default;
      if (!Number.isInteger(minutes) || minutes < SNOOZE_MINUTES.min || minutes > SNOOZE_MINUTES.max) {
        throw invalid('/minutes', `A snooze lasts ${SNOOZE_MINUTES.min} to ${SNOOZE_MINUTES.max} whole minutes.`);
      }
      const until = now + minutes * 60_000;
      change = { snoozedUntil: until, acknowledgedAt: null };
      data.minutes = minutes;
      data.snoozed_until = new Date(until).toISOString();
      data.via = input.via ?? 'page';
      await scheduleSnoozeEnd(ctx, current.id, until);
      break;
    }
  }
  if (change === null) return { ticket: current, changed: false };
  const ticket = await transitionTicket(tx, ctx.branchId, ctx.mode, current.id, [current.status], { ...change, updatedAt: now });
  if (ticket === undefined)
    throw new AppError('ticket-state-conflict', 'The ticket changed meanwhile; reload it.', { ticket_status: current.status });
  await recordEvent(ctx, EVENT[input.action], { object: presentTicket(ticket, ctx.services.config.publicUrl), ...data });
  const answer = customerAnswer(input.action, current);
  if (answer !== null) await countTicketChange(tx, ticket, now, answer);
  publishTicket(ctx, ticket, EVENT[input.action], data);
  return { ticket, changed: true };
};
