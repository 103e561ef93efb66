// Request and response schemas of the webhook routes: the same TypeBox objects validate requests
// and produce the OpenAPI document. The limits of the bodies (a URL's and a description's length, a
// rotation's overlap) are part of the contract and defined here; the endpoint verbs read theirs from here.
import { Type, type Static } from 'typebox';
import { EXAMPLE_IDS, Id, IdParam, ListOf, Nullable, StringEnum, Timestamp } from './schema-parts.ts';
import { ALL_EVENTS, TICKET_EVENT_TYPES } from './event-types.ts';

/** An endpoint's URL, at most (the address policy checks it too). */
export const MAX_URL_LENGTH = 2048;
/** An endpoint's description, at most (the verb checks it too). */
export const MAX_DESCRIPTION = 500;
/** How long a rotated-out secret may keep signing, at most. */
export const MAX_ROTATION_OVERLAP_SECONDS = 7 * 24 * 3600;

const EVENT_LIST = `"${ALL_EVENTS}" (every event) or any of ${TICKET_EVENT_TYPES.join(', ')}`;

export const EndpointIdParams = Type.Object({ id: IdParam('webhookEndpoint') });
export const DeliveryIdParams = Type.Object({ id: IdParam('webhookDelivery') });

export const WebhookUrl = Type.String({
  minLength: 1,
  maxLength: MAX_URL_LENGTH,
  description: 'Where events are POSTed. https in live mode; private, loopback and link-local targets are refused.',
  examples: ['https://pos.example.com/readybell/webhooks'],
});
export const EnabledEvents = Type.Array(Type.String({ maxLength: 64, examples: ['ticket.ready'] }), {
  minItems: 1,
  maxItems: 32,
  description: `Event types to send: ${EVENT_LIST}. Default ["*"].`,
  examples: [['*'], ['ticket.ready', 'ticket.customer_acknowledged']],
});
const Description = Nullable(Type.String({ maxLength: MAX_DESCRIPTION, examples: ['POS at the counter'] }));

export const CreateEndpointBody = Type.Object(
  { url: WebhookUrl, enabled_events: Type.Optional(EnabledEvents), description: Type.Optional(Description) },
  { additionalProperties: false },
);

export const UpdateEndpointBody = Type.Object(
  {
    url: Type.Optional(WebhookUrl),
    enabled_events: Type.Optional(EnabledEvents),
    description: Type.Optional(Description),
    disabled: Type.Optional(Type.Boolean({ description: 'true stops deliveries (pending ones fail); false re-enables the endpoint' })),
  },
  { additionalProperties: false },
);

export const RotateBody = Type.Optional(
  Type.Object(
    {
      expires_in: Type.Optional(
        Type.Integer({
          minimum: 0,
          maximum: MAX_ROTATION_OVERLAP_SECONDS,
          description: 'Seconds the old secret keeps signing beside the new one (default 86400; 0 ends it now)',
        }),
      ),
    },
    { additionalProperties: false },
  ),
);

export const NoBody = Type.Optional(
  Type.Object({}, { additionalProperties: false, description: 'No body is needed; an empty JSON object is accepted.' }),
);

const WHSEC_EXAMPLE = 'whsec_3q2Z7wVbR9kLmN4pXs8TjY6cHa1FdE5u';

export const EndpointSchema = Type.Object(
  {
    object: Type.Literal('webhook_endpoint'),
    id: Id('webhookEndpoint'),
    url: Type.String({ examples: ['https://pos.example.com/readybell/webhooks'] }),
    enabled_events: Type.Array(Type.String({ examples: ['*'] }), { description: '`["*"]`: every event type' }),
    description: Nullable(Type.String({ examples: ['POS at the counter'] })),
    disabled: Type.Boolean(),
    disabled_reason: Nullable(
      Type.String({
        description: 'Why the endpoint was disabled (410 Gone, 3 days of failures, or by hand)',
        examples: ['disabled by hand'],
      }),
    ),
    disabled_at: Nullable(Timestamp),
    previous_secret_expires_at: Nullable(
      Type.String({
        format: 'date-time',
        description: 'While a rotated-out secret still signs: when it stops',
        examples: ['2026-11-23T12:00:00.000Z'],
      }),
    ),
    livemode: Type.Boolean(),
    branch: Id('branch'),
    created_at: Timestamp,
    updated_at: Timestamp,
    secret: Type.Optional(
      Type.String({
        pattern: '^whsec_',
        examples: [WHSEC_EXAMPLE],
        description:
          'The signing secret: only in the answers to create and rotate_secret (not in an idempotent replay of them; GET …/secret reveals it)',
      }),
    ),
  },
  { $id: 'WebhookEndpoint', description: 'Where events are sent, signed with its secret' },
);

export type EndpointObject = Static<typeof EndpointSchema>;

export const EndpointListSchema = ListOf(Type.Ref('WebhookEndpoint'), 'Newest first');

export const SecretSchema = Type.Object({
  object: Type.Literal('webhook_endpoint_secret'),
  endpoint: Id('webhookEndpoint'),
  secret: Type.String({ pattern: '^whsec_', examples: [WHSEC_EXAMPLE] }),
  previous_secret_expires_at: Nullable(Timestamp),
});

export const DeletedEndpointSchema = Type.Object({
  object: Type.Literal('webhook_endpoint'),
  id: Id('webhookEndpoint'),
  deleted: Type.Literal(true),
});

const AttemptSchema = Type.Object({
  attempted_at: Timestamp,
  response_status: Nullable(
    Type.Integer({
      description: 'HTTP status of the answer; null when none came (refused, timed out, connection failed)',
      examples: [200],
    }),
  ),
  duration_ms: Type.Integer({ examples: [84] }),
  response_body: Nullable(Type.String({ description: 'The first 1 KB of the answer', examples: ['{"received":true}'] })),
  error: Nullable(Type.String({ examples: ['timed out after 10000 ms'] })),
  manual: Type.Boolean({ description: 'Made by POST /v1/webhook_deliveries/{id}/retry' }),
});

const DeliveryStatus = StringEnum(['pending', 'succeeded', 'failed'], {
  description: '`pending`: will be tried (again); `failed`: every retry failed',
});

export const DeliverySchema = Type.Object(
  {
    object: Type.Literal('webhook_delivery'),
    id: Id('webhookDelivery'),
    endpoint: Id('webhookEndpoint'),
    event: Id('event'),
    event_type: Type.String({ examples: ['ticket.ready'] }),
    status: DeliveryStatus,
    livemode: Type.Boolean(),
    attempt_count: Type.Integer({ examples: [1] }),
    next_attempt_at: Nullable(Timestamp),
    last_attempt_at: Nullable(Timestamp),
    last_response_status: Nullable(Type.Integer({ examples: [200] })),
    last_error: Nullable(Type.String({ examples: ['timed out after 10000 ms'] })),
    created_at: Timestamp,
    attempts: Type.Array(AttemptSchema, { description: 'The attempt log, oldest first (the latest 20)' }),
  },
  { $id: 'WebhookDelivery', description: 'One event on its way to one endpoint, with every attempt' },
);

export type DeliveryObject = Static<typeof DeliverySchema>;

export const DeliveryListSchema = ListOf(Type.Ref('WebhookDelivery'), 'Newest first');

export const DeliveriesQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    starting_after: Type.Optional(
      Type.String({
        maxLength: 64,
        description: 'Cursor: the last delivery id of the previous page',
        examples: [EXAMPLE_IDS.webhookDelivery],
      }),
    ),
    status: Type.Optional(DeliveryStatus),
    event: Type.Optional(Type.String({ maxLength: 64, description: 'Only the delivery of this event', examples: [EXAMPLE_IDS.event] })),
  },
  { additionalProperties: false },
);
