// TypeBox schemas shared by request validation and the OpenAPI document: one source for both.
import { Type, type TSchema } from 'typebox';
import { QUEUE_NAME_PATTERN } from '../domain/validation.ts';
import { TICKET_STATUSES } from '../domain/ticket-state.ts';

export const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
export const Timestamp = Type.String({ format: 'date-time', description: 'RFC 3339 UTC with milliseconds' });

export const ProblemSchema = Type.Object(
  {
    type: Type.String({ description: '/problems/<code>, a page describing the problem' }),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    instance: Type.String(),
    code: Type.String(),
    request_id: Type.String(),
    errors: Type.Optional(Type.Array(Type.Object({ pointer: Type.String(), detail: Type.String() }))),
    ticket_status: Type.Optional(Type.String()),
    retry_after: Type.Optional(Type.Integer()),
    violated_policies: Type.Optional(Type.Array(Type.String())),
  },
  { $id: 'Problem', additionalProperties: true },
);

export const QueueName = Type.String({ pattern: QUEUE_NAME_PATTERN, description: '1–16 letters, digits or _' });

export const TicketStatusSchema = Type.Union(TICKET_STATUSES.map((s) => Type.Literal(s)));

export const TicketSchema = Type.Object(
  {
    object: Type.Literal('ticket'),
    id: Type.String({ pattern: '^tk_' }),
    display_number: Type.String({ examples: ['A-42'] }),
    queue: Type.String(),
    status: TicketStatusSchema,
    url: Type.String({ format: 'uri' }),
    external_ref: Nullable(Type.String()),
    metadata: Type.Record(Type.String(), Type.String()),
    livemode: Type.Boolean(),
    branch: Type.String(),
    created_at: Timestamp,
    ready_at: Nullable(Timestamp),
    collected_at: Nullable(Timestamp),
    cancelled_at: Nullable(Timestamp),
    expired_at: Nullable(Timestamp),
    cancellation_reason: Nullable(Type.String()),
    customer: Type.Object({
      viewed_at: Nullable(Timestamp),
      notifications: Type.Union([Type.Literal('none'), Type.Literal('push'), Type.Literal('sms')]),
      acknowledged_at: Nullable(Timestamp),
      snoozed_until: Nullable(Timestamp),
    }),
    rings: Type.Integer(),
  },
  { $id: 'Ticket' },
);

export const RingResultSchema = Type.Object(
  {
    rang: Type.Boolean({ description: 'Whether a channel is known to have reached the customer' }),
    channel_used: Type.Union([Type.Literal('push'), Type.Literal('page'), Type.Literal('sms'), Type.Literal('none'), Type.Literal('unknown')], {
      description: 'The strongest channel that reached the customer; `none`: none did; `unknown`: none is known to have, '
        + 'and an SMS whose sending was interrupted by a server crash may have (it is never sent twice)',
    }),
    call_out_loud: Type.Boolean({ description: 'Whether a connected display board with voice on was told to announce' }),
    ticket: Type.Ref('Ticket'),
  },
  { $id: 'RingResult' },
);

export const BranchSchema = Type.Object(
  {
    object: Type.Literal('branch'),
    id: Type.String(),
    account: Type.String(),
    plan: Type.String(),
    name: Type.String(),
    timezone: Type.String(),
    default_queue: Type.String(),
    expiry_hours: Type.Number(),
    reminder_delay_seconds: Type.Integer(),
    reminder_count: Type.Integer(),
    voice: Type.Object({ enabled: Type.Boolean(), language: Type.String() }),
    customer_page: Type.Object({
      language: Type.String(),
      messages: Type.Object({ waiting: Nullable(Type.String()), ready: Nullable(Type.String()), closed: Nullable(Type.String()) }),
      phone_entry: Type.Boolean({ description: 'The customer page asks for a phone number for SMS fallback; false by default' }),
      phone_country: Nullable(Type.String({ description: 'Where numbers typed without + are read; null: the customer types + and the country code' })),
    }),
    sms_enabled: Type.Boolean(),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'Branch' },
);

export const QueueSchema = Type.Object(
  { object: Type.Literal('queue'), name: Type.String(), is_default: Type.Boolean(), open_tickets: Type.Integer(), created_at: Timestamp },
  { $id: 'Queue' },
);

export const listOf = (ref: string) =>
  Type.Object({ object: Type.Literal('list'), data: Type.Array(Type.Ref(ref)), has_more: Type.Boolean() });

export const SHARED_SCHEMAS = [ProblemSchema, TicketSchema, RingResultSchema, BranchSchema, QueueSchema];

/**
 * Problem answers every authenticated route can give; added to each route's response map. 503: an
 * overloaded or shutting-down node (plugins/load-shedding.ts, plugins/draining.ts).
 */
export const problemResponses = (...statuses: number[]) =>
  Object.fromEntries([400, 401, 403, 404, 409, 415, 422, 429, 503, ...statuses].map((s) => [s, Type.Ref('Problem')]));
