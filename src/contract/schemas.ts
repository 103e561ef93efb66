// TypeBox schemas shared by request validation and the OpenAPI document: one source for both.
// Each one here has an $id and becomes a named component of the document. In src/contract/, with
// the presenters that build these objects, below the verbs and the routes that use both.
import { Type, type Static, type TBoolean, type TSchema } from 'typebox';
import { QUEUE_NAME_PATTERN } from '../domain/validation.ts';
import { SMS_STATUSES } from '../core/ticket.ts';
import { TICKET_STATUSES } from '../domain/ticket-state.ts';
import { SUPPORTED_LANGUAGES } from '../domain/branch-settings.ts';
import { PROBLEM_CODES } from './problem-catalogue.ts';
import {
  ChannelUsedSchema,
  EventEnvelopeSchema,
  EventRequestSchema,
  EventSchema,
  TicketChangeSchema,
  TYPED_EVENT_SCHEMAS,
} from './event-schemas.ts';
import { DeliverySchema, EndpointSchema } from './webhook-schemas.ts';
import { BillingSchema } from './billing-schemas.ts';
import { LADDER_CHANNELS, LADDER_SMS, MAX_LADDER_SECONDS, MIN_STEP_GAP_SECONDS } from '../domain/escalation-ladder.ts';
import { PAID_SWITCHES, SUBSCRIBE_CHANNELS, type PaidSwitchName } from '../core/channel-catalogue.ts';
import {
  EXAMPLE_IDS,
  EXAMPLE_REQUEST_ID,
  EXAMPLE_TICKET_URL,
  Id,
  Nullable,
  Ref,
  StringEnum,
  Timestamp,
  TimestampSchema,
} from './schema-parts.ts';
import { InsightFiguresSchema, InsightsScopeSchema } from './insight-figures-schema.ts';
import { SessionSchema } from './session-schema.ts';
import { AccountSchema, EmailChangeSchema, InvitationSchema } from './account-schemas.ts';
import { AnnouncementSchema, ApiKeySchema, DisplaySchema, UserSchema } from './staff-schemas.ts';

export const ProblemSchema = Type.Object(
  {
    type: Type.String({ description: 'A page describing the problem: `/problems/<code>`', examples: ['/problems/ticket-state-conflict'] }),
    title: Type.String({ description: 'The same for every problem of this code', examples: ['Ticket state conflict'] }),
    status: Type.Integer({ description: 'The HTTP status', examples: [409] }),
    detail: Type.String({
      description: 'What went wrong with this request, for a person to read',
      examples: ['Cannot mark ready a ticket that is collected.'],
    }),
    instance: Type.String({ description: 'The path of the request', examples: [`/v1/tickets/${EXAMPLE_IDS.ticket}/ready`] }),
    code: StringEnum(PROBLEM_CODES, {
      description: 'What to branch on. More codes may be added within v1: treat an unknown one by its HTTP status.',
    }),
    request_id: Type.String({ description: 'Also in the `Request-Id` header; quote it to support', examples: [EXAMPLE_REQUEST_ID] }),
    errors: Type.Optional(
      Type.Array(
        Type.Object({
          pointer: Type.String({ description: 'JSON Pointer to the field (`/query/…` for the query string)', examples: ['/queue'] }),
          detail: Type.String({
            examples: [
              'must be a phone number in international (E.164) form: +, the country code and the number, digits only, such as +33612345678',
            ],
          }),
        }),
        { description: '`validation-failed`: each field that is wrong' },
      ),
    ),
    ticket_status: Type.Optional(StringEnum(TICKET_STATUSES, { description: "`ticket-state-conflict`: the ticket's current status" })),
    retry_after: Type.Optional(
      Type.Integer({ description: 'Seconds to wait before retrying (also the `Retry-After` header)', examples: [3] }),
    ),
    violated_policies: Type.Optional(
      Type.Array(Type.String({ examples: ['writes'] }), { description: '`rate-limited`: the buckets that were empty' }),
    ),
  },
  { $id: 'Problem', additionalProperties: true, description: 'An RFC 9457 problem document, sent as `application/problem+json`' },
);

export const QueueName = Type.String({ pattern: QUEUE_NAME_PATTERN, description: '1–16 letters, digits or _', examples: ['A'] });

export const TicketStatusSchema = StringEnum(TICKET_STATUSES, {
  description: '`created` → `ready` → `collected`; `created` or `ready` → `cancelled` or `expired`',
});

export const TicketSchema = Type.Object(
  {
    object: Type.Literal('ticket'),
    id: Id('ticket'),
    display_number: Type.String({
      description: '`<queue>-<n>`: what the customer is called by; n restarts each business day',
      examples: ['A-42'],
    }),
    queue: Type.String({ examples: ['A'] }),
    status: TicketStatusSchema,
    url: Type.String({
      format: 'uri',
      description: "The customer's page: print it as a QR code on the receipt",
      examples: [EXAMPLE_TICKET_URL],
    }),
    external_ref: Nullable(Type.String({ description: 'Your order number', examples: ['1001'] })),
    metadata: Type.Record(Type.String(), Type.String(), { description: 'Your own string pairs', examples: [{ table: '12' }] }),
    livemode: Type.Boolean({ description: 'false for a ticket made with a test key' }),
    branch: Id('branch'),
    created_at: Timestamp,
    ready_at: Nullable(Timestamp),
    collected_at: Nullable(Timestamp),
    cancelled_at: Nullable(Timestamp),
    expired_at: Nullable(Timestamp),
    cancellation_reason: Nullable(Type.String({ examples: ['Customer left'] })),
    customer: Type.Object(
      {
        viewed_at: Nullable(Timestamp),
        notifications: StringEnum(['none', ...SUBSCRIBE_CHANNELS], { description: 'What the customer turned on' }),
        acknowledged_at: Nullable(Timestamp),
        snoozed_until: Nullable(Timestamp),
      },
      { description: 'What the customer did on their page' },
    ),
    rings: Type.Integer({ description: 'How many times the customer was rung', examples: [0] }),
    sms_status: Nullable(
      StringEnum(SMS_STATUSES, {
        description:
          "The delivery state of the latest text sent to the customer, from the SMS provider's receipts: `queued` (the provider took it), `sent` (handed to the carrier), " +
          "`delivered` (the phone got it), `undelivered` or `failed` (it will not arrive). null: no text was sent. Test mode's simulated texts are `delivered` at once.",
      }),
    ),
  },
  { $id: 'Ticket', description: 'A pickup ticket' },
);

export const RingResultSchema = Type.Object(
  {
    rang: Type.Boolean({ description: 'Whether a channel is known to have reached the customer' }),
    channel_used: ChannelUsedSchema,
    call_out_loud: Type.Boolean({ description: 'Whether a connected display board with voice on was told to announce' }),
    ticket: Ref(TicketSchema),
  },
  { $id: 'RingResult', description: 'What a ring reached: a true account, never a guess' },
);

const Language = StringEnum(SUPPORTED_LANGUAGES);

export const LadderStepSchema = Type.Object(
  {
    after_seconds: Type.Integer({
      minimum: MIN_STEP_GAP_SECONDS,
      maximum: MAX_LADDER_SECONDS,
      description: `Seconds after the ready; each step at least ${MIN_STEP_GAP_SECONDS} s after the one before it`,
      examples: [60],
    }),
    channels: Type.Array(StringEnum(LADDER_CHANNELS), {
      maxItems: LADDER_CHANNELS.length,
      uniqueItems: true,
      description: "The free channels to the customer's phone (`wallet`: the Wallet pass they added, where one is configured)",
      examples: [LADDER_CHANNELS],
    }),
    sms: StringEnum(LADDER_SMS, {
      description:
        '`never`; `fallback`: only when push, wallet and page did not reach the customer; `always`: even if push was accepted (business plan, SMS on)',
    }),
    call_out: Type.Boolean({ description: 'Connected boards with voice on call the number out', examples: [true] }),
  },
  { $id: 'EscalationStep', additionalProperties: false, description: 'One reminder of the escalation ladder' },
);

/** The ladder of the documentation: push and page after a minute, a text too after two. */
export const EXAMPLE_LADDER = [
  { after_seconds: 60, channels: ['push', 'page'], sms: 'never', call_out: true },
  { after_seconds: 120, channels: ['push', 'page'], sms: 'always', call_out: true },
];

export const BranchSchema = Type.Object(
  {
    object: Type.Literal('branch'),
    id: Id('branch'),
    account: Id('account'),
    plan: StringEnum(['free', 'pro', 'business'], { description: 'pro and business include the API and webhooks; business adds SMS' }),
    name: Type.String({ examples: ['Rue Oberkampf'] }),
    timezone: Type.String({ description: 'IANA time zone: display numbers restart at its midnight', examples: ['Europe/Paris'] }),
    default_queue: Type.String({ examples: ['A'] }),
    expiry_hours: Type.Number({
      description: 'Open tickets expire this long after creation: a whole number of minutes, in hours',
      examples: [12],
    }),
    reminder_delay_seconds: Type.Integer({ examples: [120] }),
    reminder_count: Type.Integer({ examples: [2] }),
    escalation_ladder: Nullable(
      Type.Array(Ref(LadderStepSchema), {
        description:
          'The reminders of a ready ticket nobody acknowledged, step by step; null: `reminder_count` reminders, one every `reminder_delay_seconds`, through every channel with SMS as the fallback',
        examples: [EXAMPLE_LADDER],
      }),
    ),
    voice: Type.Object({ enabled: Type.Boolean(), language: Language }, { description: 'Display boards calling numbers out loud' }),
    customer_page: Type.Object({
      language: Language,
      messages: Type.Object(
        {
          waiting: Nullable(Type.String({ examples: ['We are preparing your order.'] })),
          ready: Nullable(Type.String({ examples: ['Your order is ready at the counter.'] })),
          closed: Nullable(Type.String({ examples: ['Thank you, see you soon!'] })),
        },
        { description: 'Texts shown instead of the defaults; null: the default' },
      ),
      phone_entry: Type.Boolean({
        description: 'The customer page asks for a phone number for SMS fallback (business plan); false by default',
        examples: [false],
      }),
      phone_country: Nullable(
        Type.String({
          description: 'Where numbers typed without + are read (ISO 3166 code); null: the customer types + and the country code',
          examples: ['GB'],
        }),
      ),
    }),
    ...paidSwitchFields((b) => b),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'Branch', description: 'A shop: the settings its tickets, pages and boards follow' },
);

/**
 * The paid channels' branch switches (`sms_enabled`, …; the catalogue's `branchSwitch`) as fields
 * of the Branch (`wrap`: as is) and of its PATCH (`wrap`: optional).
 */
export function paidSwitchFields<T extends TSchema>(wrap: (field: TBoolean) => T): { [S in PaidSwitchName]: T } {
  return Object.fromEntries(
    PAID_SWITCHES.map((s) => [s.setting, wrap(Type.Boolean({ description: s.description, examples: [s.default] }))]),
  ) as { [S in PaidSwitchName]: T };
}

export const QueueSchema = Type.Object(
  {
    object: Type.Literal('queue'),
    name: Type.String({ examples: ['A'] }),
    is_default: Type.Boolean({ description: 'Tickets created without a queue go here' }),
    open_tickets: Type.Integer({ examples: [3] }),
    created_at: Timestamp,
  },
  { $id: 'Queue', description: 'A line of display numbers (`A-1`, `A-2`, …)' },
);

// The objects as the API sends them: the presenters return these types, so a field added to a
// schema and not to its presenter (or the other way round) fails type-checking.
export type TicketObject = Static<typeof TicketSchema>;
export type BranchObject = Static<typeof BranchSchema>;
export type QueueObject = Static<typeof QueueSchema>;

export const SHARED_SCHEMAS = [
  TimestampSchema,
  ProblemSchema,
  TicketSchema,
  RingResultSchema,
  LadderStepSchema,
  BranchSchema,
  QueueSchema,
  EndpointSchema,
  DeliverySchema,
  EventRequestSchema,
  EventEnvelopeSchema,
  TicketChangeSchema,
  ...TYPED_EVENT_SCHEMAS,
  EventSchema,
  InsightFiguresSchema,
  InsightsScopeSchema,
  SessionSchema,
  UserSchema,
  ApiKeySchema,
  DisplaySchema,
  AnnouncementSchema,
  BillingSchema,
  InvitationSchema,
  EmailChangeSchema,
  AccountSchema,
];
