// /v1/webhook_endpoints and /v1/webhook_deliveries. Endpoints and deliveries belong to the key's
// branch and mode: another branch's or mode's id answers 404 like an unknown one.
import type { FastifyInstance } from 'fastify';
import type { Ctx, Services } from '../../../core/ctx.ts';
import { notFound } from '../../../domain/errors.ts';
import { isId } from '../../../domain/ids.ts';
import {
  createWebhookEndpoint,
  removeWebhookEndpoint,
  requireWebhookAccess,
  updateWebhookEndpoint,
} from '../../../actions/webhook-endpoints.ts';
import { rotateWebhookSecret } from '../../../actions/rotate-webhook-secret.ts';
import { sendTestWebhook } from '../../../actions/send-test-webhook.ts';
import { retryWebhookDelivery } from '../../../actions/retry-webhook-delivery.ts';
import {
  listWebhookDeliveries,
  listWebhookEndpoints,
  readWebhookDelivery,
  readWebhookEndpoint,
  revealWebhookSecret,
  type DeliveryWithAttempts,
} from '../../../actions/read-webhooks.ts';
import { presentDelivery, presentEndpoint } from '../../../contract/webhook-present.ts';
import { checkWebhookUrl, systemLookup } from '../../../webhooks/url-policy.ts';
import { Type, type Static } from 'typebox';
import { operation, typed } from '../../operation.ts';
import { EXAMPLE_ENDPOINT } from '../../../contract/example-objects.ts';
import { runWrite } from '../../write.ts';
import { ctxFor } from './context.ts';
import {
  CreateEndpointBody,
  DeletedEndpointSchema,
  DeliveriesQuery,
  DeliveryIdParams,
  DeliveryListSchema,
  EndpointIdParams,
  EndpointListSchema,
  NoBody,
  RotateBody,
  SecretSchema,
  UpdateEndpointBody,
} from '../../../contract/webhook-schemas.ts';

const TAG = 'Webhook endpoints';
const Endpoint = Type.Ref('WebhookEndpoint');
const Delivery = Type.Ref('WebhookDelivery');
const WHO = 'API keys, and the owner role in the staff page; not on the free plan.';

/** The stored copy of a create/rotate answer leaves the secret out: it is never at rest there. */
const withoutSecret = <T extends { secret?: string }>(answer: T): Omit<T, 'secret'> => {
  const { secret: _secret, ...rest } = answer;
  return rest;
};

function idParam(id: string, kind: 'webhookEndpoint' | 'webhookDelivery'): string {
  if (!isId(kind, id)) throw notFound(kind === 'webhookEndpoint' ? 'webhook endpoint' : 'webhook delivery');
  return id;
}

const present = ({ delivery, attempts }: DeliveryWithAttempts) => presentDelivery(delivery, attempts);

export function registerWebhookEndpointRoutes(fastify: FastifyInstance, services: Services): void {
  const app = typed(fastify);
  const { clock, config } = services;
  // Read on every call, so tests can substitute a resolver on a running service.
  const checkUrl = (url: string, ctx: Ctx): Promise<string> =>
    checkWebhookUrl(url, ctx.mode, config, services.webhookLookup ?? systemLookup);

  app.get(
    '/webhook_endpoints',
    {
      schema: operation({
        operationId: 'listWebhookEndpoints',
        tag: TAG,
        summary: 'List webhook endpoints',
        description: `The branch's endpoints in the key's mode (at most 16), newest first, without their secrets. ${WHO}`,
        answers: { 200: { description: 'Every endpoint', schema: EndpointListSchema } },
      }),
    },
    async (req) => {
      const endpoints = await listWebhookEndpoints({ ctx: ctxFor(req, services), input: undefined });
      const now = clock.now();
      return { object: 'list', data: endpoints.map((e) => presentEndpoint(e, now)), has_more: false };
    },
  );

  app.post(
    '/webhook_endpoints',
    {
      schema: operation({
        operationId: 'createWebhookEndpoint',
        tag: TAG,
        summary: 'Create a webhook endpoint',
        description:
          "Events of the key's mode are POSTed to `url`, signed with the endpoint's secret: the answer is the only one that carries it " +
          `(an idempotent replay leaves it out; \`GET …/secret\` reveals it). ${WHO}`,
        body: CreateEndpointBody,
        answers: {
          201: {
            description: 'The endpoint, with its signing `secret`',
            schema: Endpoint,
            example: { ...EXAMPLE_ENDPOINT, secret: 'whsec_3q2Z7wVbR9kLmN4pXs8TjY6cHa1FdE5u' },
          },
        },
        problems: {
          'validation-failed':
            'A field is wrong, an event type is unknown, or the URL is refused (not https in live mode; a private, loopback or link-local address).',
          conflict: 'The branch already has 16 endpoints in this mode.',
        },
      }),
    },
    async (req, reply) => {
      const ctx = ctxFor(req, services);
      // The verb enforces access; asked here first only because the URL's DNS lookup comes before
      // the write: a caller without access gets its 403 before any lookup is made for it.
      requireWebhookAccess(ctx);
      const body = req.body;
      // DNS is checked before the write: a lookup must never hold the store's writer.
      const url = await checkUrl(body.url, ctx);
      return runWrite(req, reply, ctx, {
        status: 201,
        verb: createWebhookEndpoint,
        input: { ...body, url },
        present: ({ endpoint, secret }) => presentEndpoint(endpoint, clock.now(), secret),
        forReplay: withoutSecret,
      });
    },
  );

  app.get(
    '/webhook_endpoints/:id',
    {
      schema: operation({
        operationId: 'getWebhookEndpoint',
        tag: TAG,
        summary: 'Get a webhook endpoint',
        description: `The endpoint, without its secret. ${WHO}`,
        params: EndpointIdParams,
        answers: { 200: { description: 'The endpoint', schema: Endpoint, example: EXAMPLE_ENDPOINT } },
      }),
    },
    async (req) => {
      const id = idParam(req.params.id, 'webhookEndpoint');
      return presentEndpoint(await readWebhookEndpoint({ ctx: ctxFor(req, services), input: { id } }), clock.now());
    },
  );

  app.patch(
    '/webhook_endpoints/:id',
    {
      schema: operation({
        operationId: 'updateWebhookEndpoint',
        tag: TAG,
        summary: 'Update a webhook endpoint',
        description: `Change its URL, events or description; \`"disabled": true\` stops deliveries (pending ones fail), \`false\` re-enables it. ${WHO}`,
        params: EndpointIdParams,
        body: UpdateEndpointBody,
        answers: { 200: { description: 'The endpoint as it is now', schema: Endpoint } },
        problems: { 'validation-failed': 'A field is wrong, an event type is unknown, or the URL is refused.' },
      }),
    },
    async (req, reply) => {
      const id = idParam(req.params.id, 'webhookEndpoint');
      const ctx = ctxFor(req, services);
      requireWebhookAccess(ctx); // before the DNS lookup, as for a create
      const body = req.body ?? {};
      const url = body.url === undefined ? undefined : await checkUrl(body.url, ctx);
      return runWrite(req, reply, ctx, {
        status: 200,
        verb: updateWebhookEndpoint,
        input: { ...body, url, id },
        present: (endpoint) => presentEndpoint(endpoint, clock.now()),
      });
    },
  );

  app.delete(
    '/webhook_endpoints/:id',
    {
      schema: operation({
        operationId: 'deleteWebhookEndpoint',
        tag: TAG,
        summary: 'Delete a webhook endpoint',
        description: `Removes the endpoint and its delivery log; queued deliveries are dropped. ${WHO}`,
        params: EndpointIdParams,
        answers: { 200: { description: 'The endpoint is gone', schema: DeletedEndpointSchema } },
      }),
    },
    async (req, reply) => {
      const id = idParam(req.params.id, 'webhookEndpoint');
      return runWrite(req, reply, ctxFor(req, services), {
        status: 200,
        verb: removeWebhookEndpoint,
        input: { id },
        present: (gone): Static<typeof DeletedEndpointSchema> => ({ object: 'webhook_endpoint', id: gone.id, deleted: true }),
      });
    },
  );

  app.post(
    '/webhook_endpoints/:id/rotate_secret',
    {
      schema: operation({
        operationId: 'rotateWebhookEndpointSecret',
        tag: TAG,
        summary: 'Rotate the signing secret',
        description:
          'A new secret, in the answer. The old one keeps signing beside it for `expires_in` seconds (default 24 h), so you can deploy the new one ' +
          `without rejecting a delivery. ${WHO}`,
        params: EndpointIdParams,
        body: RotateBody,
        answers: { 200: { description: 'The endpoint, with its new `secret`', schema: Endpoint } },
      }),
    },
    async (req, reply) => {
      const id = idParam(req.params.id, 'webhookEndpoint');
      const body = req.body ?? {};
      return runWrite(req, reply, ctxFor(req, services), {
        status: 200,
        verb: rotateWebhookSecret,
        input: { id, expires_in: body.expires_in },
        present: ({ endpoint, secret }) => presentEndpoint(endpoint, clock.now(), secret),
        forReplay: withoutSecret,
      });
    },
  );

  app.get(
    '/webhook_endpoints/:id/secret',
    {
      schema: operation({
        operationId: 'getWebhookEndpointSecret',
        tag: TAG,
        summary: 'Reveal the signing secret',
        description: `The current secret (\`Cache-Control: no-store\`), and until when the previous one still signs. ${WHO}`,
        params: EndpointIdParams,
        answers: { 200: { description: 'The secret', schema: SecretSchema } },
      }),
    },
    async (req, reply) => {
      const id = idParam(req.params.id, 'webhookEndpoint');
      const { endpoint, secret, previousUntil } = await revealWebhookSecret({ ctx: ctxFor(req, services), input: { id } });
      // A secret must not linger in a browser or proxy cache.
      reply.header('Cache-Control', 'no-store');
      return {
        object: 'webhook_endpoint_secret',
        endpoint: endpoint.id,
        secret,
        previous_secret_expires_at: previousUntil === null ? null : new Date(previousUntil).toISOString(),
      } satisfies Static<typeof SecretSchema>;
    },
  );

  app.post(
    '/webhook_endpoints/:id/test',
    {
      schema: operation({
        operationId: 'testWebhookEndpoint',
        tag: TAG,
        summary: 'Send a test event',
        description: `Sends a \`ping\` event to this endpoint only, whatever its \`enabled_events\`, signed and retried like any other. ${WHO}`,
        params: EndpointIdParams,
        body: NoBody,
        answers: { 202: { description: 'The delivery, queued', schema: Delivery } },
        problems: { conflict: 'The endpoint is disabled; enable it first.' },
      }),
    },
    async (req, reply) => {
      const id = idParam(req.params.id, 'webhookEndpoint');
      return runWrite(req, reply, ctxFor(req, services), {
        status: 202,
        verb: sendTestWebhook,
        input: { id },
        present: (delivery) => presentDelivery(delivery, []),
      });
    },
  );

  app.get(
    '/webhook_endpoints/:id/deliveries',
    {
      schema: operation({
        operationId: 'listWebhookEndpointDeliveries',
        tag: TAG,
        summary: "List an endpoint's deliveries",
        description: `Each delivery with its attempts (status, time, the first bytes of the answer), newest first. ${WHO}`,
        params: EndpointIdParams,
        querystring: DeliveriesQuery,
        answers: { 200: { description: 'A page of deliveries', schema: DeliveryListSchema } },
      }),
    },
    async (req) => {
      const endpointId = idParam(req.params.id, 'webhookEndpoint');
      const q = req.query;
      const page = await listWebhookDeliveries({
        ctx: ctxFor(req, services),
        input: { endpointId, status: q.status, eventId: q.event, startingAfter: q.starting_after, limit: q.limit ?? 20 },
      });
      return { object: 'list', data: page.data.map(present), has_more: page.hasMore };
    },
  );

  app.get(
    '/webhook_deliveries/:id',
    {
      schema: operation({
        operationId: 'getWebhookDelivery',
        tag: TAG,
        summary: 'Get a delivery',
        description: `One delivery with its attempts. ${WHO}`,
        params: DeliveryIdParams,
        answers: { 200: { description: 'The delivery', schema: Delivery } },
      }),
    },
    async (req) => {
      return present(await readWebhookDelivery({ ctx: ctxFor(req, services), input: { id: req.params.id } }));
    },
  );

  app.post(
    '/webhook_deliveries/:id/retry',
    {
      schema: operation({
        operationId: 'retryWebhookDelivery',
        tag: TAG,
        summary: 'Retry a delivery',
        description: `One more attempt, now, with a fresh signature; also for a succeeded delivery (a resend). ${WHO}`,
        params: DeliveryIdParams,
        body: NoBody,
        answers: { 202: { description: 'The delivery, queued', schema: Delivery } },
        problems: { conflict: 'The endpoint of this delivery is disabled; enable it first.' },
      }),
    },
    async (req, reply) => {
      const id = idParam(req.params.id, 'webhookDelivery');
      return runWrite(req, reply, ctxFor(req, services), {
        status: 202,
        verb: retryWebhookDelivery,
        input: { id },
        present: ({ delivery, attempts }) => presentDelivery(delivery, attempts),
      });
    },
  );
}
