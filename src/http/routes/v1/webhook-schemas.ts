// Request and response schemas of the webhook routes: the same TypeBox objects validate requests
// and produce the OpenAPI document.
import { Type } from 'typebox';
import { Nullable, Timestamp } from '../../schemas.ts';
import { MAX_URL_LENGTH } from '../../../webhooks/url-policy.ts';
import { ALL_EVENTS, TICKET_EVENT_TYPES } from '../../../webhooks/event-types.ts';
import { MAX_DESCRIPTION } from '../../../actions/webhook-endpoints.ts';
import { MAX_ROTATION_OVERLAP_SECONDS } from '../../../actions/rotate-webhook-secret.ts';

const EVENT_LIST = `"${ALL_EVENTS}" (every event) or any of ${TICKET_EVENT_TYPES.join(', ')}`;

export const EndpointIdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

export const WebhookUrl = Type.String({
  minLength: 1, maxLength: MAX_URL_LENGTH,
  description: 'Where events are POSTed. https in live mode; private, loopback and link-local targets are refused.',
  examples: ['https://pos.example.com/readybell/webhooks'],
});
export const EnabledEvents = Type.Array(Type.String({ maxLength: 64 }), { minItems: 1, maxItems: 32, description: `Event types to send: ${EVENT_LIST}. Default ["*"].` });
const Description = Nullable(Type.String({ maxLength: MAX_DESCRIPTION }));

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

export const RotateBody = Type.Optional(Type.Object(
  {
    expires_in: Type.Optional(Type.Integer({
      minimum: 0, maximum: MAX_ROTATION_OVERLAP_SECONDS,
      description: 'Seconds the old secret keeps signing beside the new one (default 86400; 0 ends it now)',
    })),
  },
  { additionalProperties: false },
));

export const NoBody = Type.Optional(Type.Object({}, { additionalProperties: false, description: 'No body is needed; an empty JSON object is accepted.' }));

export const EndpointSchema = Type.Object({
  object: Type.Literal('webhook_endpoint'),
  id: Type.String({ pattern: '^we_' }),
  url: Type.String(),
  enabled_events: Type.Array(Type.String()),
  description: Nullable(Type.String()),
  disabled: Type.Boolean(),
  disabled_reason: Nullable(Type.String({ description: 'Why the endpoint was disabled (410 Gone, 3 days of failures, or by hand)' })),
  disabled_at: Nullable(Timestamp),
  previous_secret_expires_at: Nullable(Type.String({ description: 'While a rotated-out secret still signs: when it stops' })),
  livemode: Type.Boolean(),
  branch: Type.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
  secret: Type.Optional(Type.String({ pattern: '^whsec_', description: 'The signing secret: only in the answers to create and rotate_secret (not in an idempotent replay of them; GET …/secret reveals it)' })),
});

export const EndpointListSchema = Type.Object({ object: Type.Literal('list'), data: Type.Array(EndpointSchema), has_more: Type.Boolean() });

export const SecretSchema = Type.Object({
  object: Type.Literal('webhook_endpoint_secret'),
  endpoint: Type.String(),
  secret: Type.String({ pattern: '^whsec_' }),
  previous_secret_expires_at: Nullable(Timestamp),
});

export const DeletedEndpointSchema = Type.Object({ object: Type.Literal('webhook_endpoint'), id: Type.String(), deleted: Type.Literal(true) });

const AttemptSchema = Type.Object({
  attempted_at: Timestamp,
  response_status: Nullable(Type.Integer({ description: 'HTTP status of the answer; null when none came (refused, timed out, connection failed)' })),
  duration_ms: Type.Integer(),
  response_body: Nullable(Type.String({ description: 'The first 1 KB of the answer' })),
  error: Nullable(Type.String()),
  manual: Type.Boolean({ description: 'Made by POST /v1/webhook_deliveries/{id}/retry' }),
});

export const DeliverySchema = Type.Object({
  object: Type.Literal('webhook_delivery'),
  id: Type.String({ pattern: '^whd_' }),
  endpoint: Type.String(),
  event: Type.String(),
  event_type: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')]),
  livemode: Type.Boolean(),
  attempt_count: Type.Integer(),
  next_attempt_at: Nullable(Timestamp),
  last_attempt_at: Nullable(Timestamp),
  last_response_status: Nullable(Type.Integer()),
  last_error: Nullable(Type.String()),
  created_at: Timestamp,
  attempts: Type.Array(AttemptSchema, { description: 'The attempt log, oldest first (the latest 20)' }),
});

export const DeliveryListSchema = Type.Object({ object: Type.Literal('list'), data: Type.Array(DeliverySchema), has_more: Type.Boolean() });

export const DeliveriesQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    starting_after: Type.Optional(Type.String({ maxLength: 64, description: 'Cursor: the last delivery id of the previous page' })),
    status: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')])),
    event: Type.Optional(Type.String({ maxLength: 64, description: 'Only the delivery of this event' })),
  },
  { additionalProperties: false },
);
