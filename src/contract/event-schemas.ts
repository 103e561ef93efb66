// Events (PRODUCT.md §6): one envelope, and a `data` per type. The same schemas describe
// GET /v1/events and the document's `webhooks` section, since a webhook delivers the stored event
// byte for byte.
import { Type, type Static, type TSchema } from 'typebox';
import type { RingReason } from '../core/ring.ts';
import { CHANNEL_NAMES, CHANNELS_USED, SUBSCRIBE_CHANNELS } from '../core/channel-catalogue.ts';
import { TICKET_STATUSES } from '../domain/ticket-state.ts';
import { EVENT_TYPES, type EventType } from './event-types.ts';
import { CUSTOMER_VIAS, SNOOZE_MINUTES } from '../domain/customer-answer.ts';
import { allOf, EXAMPLE_REQUEST_ID, Id, Nullable, Ref, StringEnum, Timestamp } from './schema-parts.ts';

/** The version every event envelope carries (`api_version`). */
export const API_VERSION = 'v1';

export const RING_REASONS = allOf<RingReason>()(['ready', 'manual', 'reminder', 'snooze_end']);

export const ChannelUsedSchema = StringEnum(CHANNELS_USED, {
  description:
    'The strongest channel that reached the customer: `push` (the push service accepted it), else `wallet` (their phone fetched the ' +
    'updated Wallet pass after the ring), else `page` (their open page received it), ' +
    'else `sms` (the provider accepted it), else `none`. `unknown`: none is known to have, and an SMS whose sending a server crash interrupted ' +
    'may have (it is never sent twice): treat it as `none`.',
});

const RingSchema = Type.Object(
  {
    id: Id('ring'),
    seq: Type.Integer({ minimum: 1, description: "The ticket's ring count at this ring", examples: [1] }),
    reason: StringEnum(RING_REASONS, {
      description:
        '`ready`: marked ready; `manual`: POST …/ring; `reminder`: no "On my way" after the branch\'s reminder delay; `snooze_end`: the customer\'s snooze ended',
    }),
    rang: Type.Boolean({ description: 'Whether a channel is known to have reached the customer' }),
    channel_used: ChannelUsedSchema,
    call_out_loud: Type.Boolean({ description: 'Whether a connected display board with voice on was told to announce the number' }),
    channels: Type.Array(
      Type.Object({
        channel: StringEnum(CHANNEL_NAMES),
        delivered: Nullable(Type.Boolean({ description: 'null: unknown (an SMS whose sender crashed while sending it)' })),
        detail: Type.Optional(Type.String({ examples: ['accepted', 'no page open'] })),
      }),
      { description: 'Every channel tried, with what happened' },
    ),
  },
  { description: 'A ring and what it reached' },
);

const TicketData = <P extends Record<string, TSchema>>(extra: P) =>
  Type.Object({ object: Type.Ref('Ticket', { description: 'The ticket as `GET /v1/tickets/{id}` showed it at that moment' }), ...extra });

const Via = StringEnum(CUSTOMER_VIAS, {
  description: "How the customer answered: `page` (a button on their ticket page) or `sms` (a text back to a ring's SMS)",
});

const PreviousStatus = { previous_status: StringEnum(TICKET_STATUSES, { description: 'The status before this change' }) };

/**
 * The data of the five event types that move a ticket from one status to another: a named
 * component, as written out in each it cost a copy per type (issue 36 item 14).
 */
export const TicketChangeSchema = Type.Object(
  { ...TicketData(PreviousStatus).properties },
  { $id: 'TicketChange', description: 'The ticket after a change of status, and the status it had before' },
);
const TicketChange = Ref(TicketChangeSchema);

const DATA: Record<EventType, { description: string; data: TSchema }> = {
  'ticket.created': { description: 'A ticket was created (`POST /v1/tickets`).', data: TicketData({}) },
  'ticket.ready': {
    description: "A ticket was marked ready (`POST /v1/tickets/{id}/ready`). Its ring's result follows as `ticket.rung`.",
    data: TicketChange,
  },
  'ticket.rung': {
    description: "A ring's result is known: the ring of `ready`, a `manual` ring again, an automatic `reminder`, or the end of a snooze.",
    data: TicketData({ ring: RingSchema }),
  },
  'ticket.collected': {
    description: 'The customer collected the order (`POST /v1/tickets/{id}/collect`).',
    data: TicketChange,
  },
  'ticket.cancelled': { description: 'A ticket was cancelled (`POST /v1/tickets/{id}/cancel`).', data: TicketChange },
  'ticket.expired': { description: "An open ticket passed the branch's expiry.", data: TicketChange },
  'ticket.reopened': {
    description:
      'A cancelled or collected ticket was brought back (`POST /v1/tickets/{id}/reopen`), to `ready` if it had been made ready, else `created`.',
    data: TicketChange,
  },
  'ticket.customer_viewed': { description: "The customer opened the ticket's link for the first time.", data: TicketData({}) },
  'ticket.customer_subscribed': {
    description: 'The customer turned on notifications.',
    data: TicketData({ channel: StringEnum(SUBSCRIBE_CHANNELS, { description: 'What the customer turned on' }) }),
  },
  'ticket.customer_acknowledged': {
    description: 'The customer tapped "On my way" after a ring, or texted it back (`1`, `OK`, …).',
    data: TicketData({ via: Via }),
  },
  'ticket.customer_snoozed': {
    description: 'The customer asked for more time, on their page or by texting `5` back; they are rung again when it ends.',
    data: TicketData({
      minutes: Type.Integer({ minimum: SNOOZE_MINUTES.min, maximum: SNOOZE_MINUTES.max, examples: [SNOOZE_MINUTES.default] }),
      snoozed_until: Timestamp,
      via: Via,
    }),
  },
  ping: {
    description: 'A test event sent by `POST /v1/webhook_endpoints/{id}/test` to that endpoint only.',
    data: Type.Object({ object: Type.Ref('WebhookEndpoint', { description: 'The endpoint (never with its secret)' }) }),
  },
};

/** `ticket.customer_viewed` → `TicketCustomerViewedEvent`: the component's name. */
export const eventSchemaName = (type: EventType): string =>
  `${type
    .split(/[._]/)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('')}Event`;

/** A named component: every event type carries it, and written out in each it cost a copy per type. */
export const EventRequestSchema = Type.Object(
  {
    id: Type.String({ examples: [EXAMPLE_REQUEST_ID] }),
    idempotency_key: Nullable(Type.String({ examples: ['order-1001-ready'] })),
  },
  { $id: 'EventRequest', description: 'The API request that caused the event; null when a customer or a background job did' },
);

/**
 * What every event carries besides its `type` and `data`: a named component each event's schema
 * builds on (`allOf`), stated once instead of in each of the event types (issue 36).
 */
export const EventEnvelopeSchema = Type.Object(
  {
    id: Id('event', 'Unique per event: receivers deduplicate by it'),
    object: Type.Literal('event'),
    created_at: Timestamp,
    livemode: Type.Boolean({ description: 'false for events made in test mode' }),
    api_version: Type.Literal(API_VERSION),
    branch: Id('branch'),
    request: Nullable(Ref(EventRequestSchema)),
  },
  { $id: 'EventEnvelope', description: 'What every event carries besides its `type` and `data`' },
);

const envelope = <D extends TSchema>(type: EventType, data: D, options: { $id: string; description: string }) => {
  const own = Type.Object({ type: Type.Literal(type), data });
  return Type.Unsafe<Static<typeof EventEnvelopeSchema> & Static<typeof own>>({
    ...options,
    type: 'object',
    allOf: [Type.Ref('EventEnvelope')],
    required: own.required,
    properties: own.properties,
  });
};

export const TYPED_EVENT_SCHEMAS = EVENT_TYPES.map((type) =>
  envelope(type, DATA[type].data, { $id: eventSchemaName(type), description: DATA[type].description }),
);

/**
 * Any event: what GET /v1/events lists, one of the typed events by `type`. More types may come
 * within v1 (a receiver ignores the ones it does not know), so a client should not reject them.
 */
export const EventSchema = Type.Unsafe<unknown>({
  $id: 'Event',
  description:
    'An event: one of the types below, told apart by `type`. More types may be added within v1; ignore the ones you do not know.',
  oneOf: EVENT_TYPES.map((type) => ({ $ref: eventSchemaName(type) })),
  discriminator: {
    propertyName: 'type',
    mapping: Object.fromEntries(EVENT_TYPES.map((type) => [type, `#/components/schemas/${eventSchemaName(type)}`])),
  },
});

export const eventDescription = (type: EventType): string => DATA[type].description;
