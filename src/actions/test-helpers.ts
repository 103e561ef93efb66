// The test helpers' verbs (decision 0018): the customer played by a test key, and the pages and
// boards readybell simulates. Each is a verb the write path runs like any other; opening a page
// or a board is the work after the commit (a Continuation), so that once the request is
// answered a ring reaches it.
import type { Action, Ctx } from '../core/ctx.ts';
import type { ClientSimulator } from '../core/client-simulator.ts';
import type { Ticket } from '../core/ticket.ts';
import { AppError } from '../domain/errors.ts';
import type { Display } from '../store/displays.ts';
import { Continuation } from './continuation.ts';
import { recordCustomerAction, type CustomerActionName } from './customer-action.ts';
import { readDisplay } from './displays.ts';
import { subscribeToPush, type PushKeys } from './push-subscription.ts';
import { readTicket } from './read-tickets.ts';

const simulated = (ctx: Ctx): ClientSimulator => {
  if (ctx.services.simulatedClients === undefined) throw new AppError('unavailable', 'This node runs no simulated pages or boards.');
  return ctx.services.simulatedClients;
};

/** What the customer's tap does; `subscribe` with the simulated push service's keys, made by the caller. */
export const actAsCustomer: Action<{ ticketId: string; action: CustomerActionName; minutes?: number; keys?: PushKeys }, Ticket> = async ({
  ctx,
  input,
}) => {
  const { ticketId, action, minutes, keys } = input;
  if (action === 'subscribe' && keys !== undefined) return subscribeToPush({ ctx, input: { ticketId, keys } });
  return (await recordCustomerAction({ ctx, input: { ticketId, action, minutes } })).ticket;
};

type OpenPage = { ticketId: string; minutes: number };

/** The ticket's page opened (its first view recorded), after the commit and before the answer. */
export const openTestPage: Action<OpenPage, Continuation<Ticket>> = async ({ ctx, input }) => {
  const { ticket } = await recordCustomerAction({ ctx, input: { ticketId: input.ticketId, action: 'view' } });
  return resumeOpenTestPage(ctx, { ticketId: ticket.id, minutes: input.minutes });
};

export const resumeOpenTestPage = (_ctx: Ctx, saved: unknown): Continuation<Ticket> => {
  const open = saved as OpenPage;
  return new Continuation(open, async (ctx) => {
    const ticket = await readTicket({ ctx, input: { id: open.ticketId } });
    await simulated(ctx).openPage(ticket, open.minutes);
    return async () => ticket;
  });
};

type ConnectBoard = { display: Display; minutes: number };

/** A board of the display connected with sound on, after the display is found and before the answer. */
export const connectTestBoard: Action<{ id: string; minutes: number }, Continuation<Display>> = async ({ ctx, input }) =>
  resumeConnectTestBoard(ctx, { display: await readDisplay({ ctx, input: { id: input.id } }), minutes: input.minutes });

export const resumeConnectTestBoard = (_ctx: Ctx, saved: unknown): Continuation<Display> => {
  const { display, minutes } = saved as ConnectBoard;
  return new Continuation(saved, async (ctx) => {
    await simulated(ctx).connectBoard(display, minutes);
    return async () => display;
  });
};
