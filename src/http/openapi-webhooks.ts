// The document's `webhooks` section (OpenAPI 3.1): what readybell POSTs to an endpoint, one entry
// per event type, each with its typed envelope (event-schemas.ts) and the request's headers.
import { eventSchemaName } from '../contract/event-schemas.ts';
import { EVENT_TYPES, type EventType } from '../contract/event-types.ts';
import { SIGNATURE_HEADER } from '../webhooks/signature.ts';
import { EXAMPLE_IDS } from '../contract/schema-parts.ts';
import { exampleEvent } from '../contract/example-objects.ts';
import type { Json } from './openapi-answers.ts';

const headerParam = (name: string, description: string, example: string) => ({
  name,
  in: 'header',
  required: true,
  description,
  schema: { type: 'string' as const, examples: [example] },
});

/** The headers of every delivery, stated once (components/parameters) and referred to by each event type. */
export const DELIVERY_HEADERS = {
  ServiceSignature: headerParam(
    SIGNATURE_HEADER,
    "`t=<unix seconds>,v1=<hex HMAC-SHA256>`: the HMAC, keyed with the endpoint's whole `whsec_…` secret, of `<t>.<raw body>`. " +
      'One `v1=` per valid secret while a rotated one still signs. Verify it before trusting the body (docs/webhooks-verify.md); ' +
      'reject a `t` more than 5 minutes away.',
    't=1795348990,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd',
  ),
  ServiceEventId: headerParam('Service-Event-Id', "The event's `id`, the same on every attempt: deduplicate by it.", EXAMPLE_IDS.event),
  ServiceEventType: headerParam('Service-Event-Type', "The event's `type`.", 'ticket.ready'),
};

/** What the endpoint's answer does, the same for every event type (components/responses). */
export const DELIVERY_ANSWERS = {
  WebhookReceived: {
    description: 'Received. Answer within 10 s; the body of the answer is ignored (its first 1 KB is kept in the delivery log).',
  },
  WebhookGone: { description: 'Gone: the endpoint is disabled at once and no more events are sent to it.' },
  WebhookRetried: {
    description:
      'Anything else, or no answer within 10 s, is retried with backoff (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h), honouring a `Retry-After`; ' +
      'an endpoint failing every delivery for 3 days is disabled.',
  },
};

/**
 * One whole event of each type, as its webhook delivers it (components/examples, named after the
 * event's schema): the webhooks and the answers that show the same event refer to it.
 */
export const EVENT_EXAMPLES = Object.fromEntries(
  EVENT_TYPES.map((type) => [eventSchemaName(type), { summary: type, value: exampleEvent(type) }]),
);

/** `ticket.customer_viewed` → `receiveTicketCustomerViewed`. */
const operationId = (type: EventType): string => `receive${eventSchemaName(type).replace(/Event$/, '')}`;

export function webhooksSection(): Json {
  return Object.fromEntries(
    EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: operationId(type),
          // What the event means is its schema's description, which the body names: not said twice.
          summary: type,
          tags: ['Webhook events'],
          security: [],
          parameters: Object.keys(DELIVERY_HEADERS).map((name) => ({ $ref: `#/components/parameters/${name}` })),
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: { $ref: `#/components/schemas/${eventSchemaName(type)}` },
                examples: { [eventSchemaName(type)]: { $ref: `#/components/examples/${eventSchemaName(type)}` } },
              },
            },
          },
          responses: {
            '2XX': { $ref: '#/components/responses/WebhookReceived' },
            410: { $ref: '#/components/responses/WebhookGone' },
            default: { $ref: '#/components/responses/WebhookRetried' },
          },
        },
      },
    ]),
  );
}
