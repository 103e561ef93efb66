// The OpenAPI 3.1 document is generated from the route schemas that validate requests, so the
// reference cannot drift from the behaviour. Each route declares its own part (operation.ts);
// openapi-answers.ts adds what all share, openapi-webhooks.ts what readybell sends.
import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import type { Config } from '../core/config.ts';
import { finishDocument } from './openapi-answers.ts';
import { DELIVERY_ANSWERS, DELIVERY_HEADERS, EVENT_EXAMPLES, webhooksSection } from './openapi-webhooks.ts';
import { TAGS } from './operation.ts';

const DESCRIPTION = `Pickup tickets for restaurant POS systems. Create a ticket when the order is placed, print its number and QR code on the receipt,
mark it ready when the order is plated: readybell rings the customer (their open page, Web Push, SMS, the display board) and tells you
truthfully what reached them.

**Authentication.** Send \`Authorization: Bearer rk_test_…\` (test data) or \`rk_live_…\` (live data). A key belongs to one branch and
one mode; the two modes never see each other's data.

**Retries.** Every POST, PATCH and DELETE accepts an \`Idempotency-Key\`: retry with the same key after a timeout, a \`409
idempotency-key-in-use\`, a \`429\` or a \`5xx\`, and the operation happens once.

**Errors** are RFC 9457 problem documents (\`application/problem+json\`): branch on \`code\`, show \`detail\`, quote \`request_id\`.

**Versioning.** Within v1, changes are additive: new fields, new enum values, new event types and new problem codes may appear.
Ignore what you do not know: an unknown field, enum value or event type, and treat an unknown problem code by its HTTP status. Nothing is removed,
renamed or retyped within v1 (readybell's CHANGELOG.md and docs/versioning.md have the whole policy).`;

export async function registerOpenApi(app: FastifyInstance, config: Config): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'readybell API',
        version: 'v1',
        description: DESCRIPTION,
        // The service's license (LICENSE); the client packages are MIT, each says so in its own package.json.
        license: { name: 'Apache 2.0', identifier: 'Apache-2.0' },
      },
      servers: [{ url: config.publicUrl, description: 'This readybell (PUBLIC_URL)' }],
      tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
      components: {
        // What every webhook delivery shares; finishDocument adds what every operation shares.
        parameters: DELIVERY_HEADERS,
        responses: DELIVERY_ANSWERS,
        examples: EVENT_EXAMPLES,
        securitySchemes: {
          apiKey: {
            type: 'http',
            scheme: 'bearer',
            description: 'An API key: `rk_live_…` or `rk_test_…`. The owner creates keys in the staff page.',
          },
          // The staff page's way in (docs/decisions/0008-staff-page.md).
          staffSession: {
            type: 'apiKey',
            in: 'cookie',
            name: 'readybell_session',
            description:
              "The staff page's session (POST /v1/sessions); `__Host-readybell_session` over HTTPS. It acts in live mode, or in test mode for a request " +
              'that sends `Readybell-Mode: test` (a header API keys may not send: 400). Besides the operations that name it, it is taken by every ' +
              'operation an API key can call; those name the API key alone, so that a generated client never sends the key as this cookie.',
          },
          csrfToken: {
            type: 'apiKey',
            in: 'header',
            name: 'X-CSRF-Token',
            description: "A staff session's `csrf_token`, on every POST, PATCH and DELETE made with the session cookie.",
          },
        },
      },
      webhooks: webhooksSection(),
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    transformObject: (doc) => finishDocument('openapiObject' in doc ? doc.openapiObject : doc.swaggerObject),
  });
  app.get('/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
