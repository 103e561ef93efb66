// /v1/connectors/shopify: the owner's side of the Shopify connector, mounted in the authenticated
// /v1 scope through the connector's module. Staff sessions with the owner role only; API keys get
// 403. Shopify is asked before a write's transaction (locations), never inside one.
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../core/ctx.ts';
import { Ref } from '../../contract/schema-parts.ts';
import { operation, typed } from '../../http/operation.ts';
import { sessionOf } from '../../http/plugins/session.ts';
import { runWrite } from '../../http/write.ts';
import { ctxFor } from '../../http/routes/v1/context.ts';
import {
  checkShopifySettings,
  eraseShopifyConnection,
  listShopifyLocations,
  readShopifyConnection,
  saveShopifySettings,
} from './connection.ts';
import { startShopifyAuthorize } from './oauth.ts';
import {
  ShopifyAuthorizeBody,
  ShopifyAuthorizeSchema,
  ShopifyConnectionSchema,
  ShopifyLocationListSchema,
  ShopifySettingsBody,
} from './schemas.ts';

const TAG = 'Connectors';
const WHO = 'The owner role in the staff page; API keys get 403.';
const Connection = { description: "The branch's Shopify connection", schema: Ref(ShopifyConnectionSchema) };

export function registerShopifyRoutes(fastify: FastifyInstance, services: Services): void {
  const app = typed(fastify);

  app.get(
    '/connectors/shopify',
    {
      schema: operation({
        operationId: 'getShopifyConnection',
        tag: TAG,
        access: 'staff',
        summary: 'Get the Shopify connection',
        description: WHO,
        answers: { 200: Connection },
      }),
    },
    async (req) => readShopifyConnection(ctxFor(req, services)),
  );

  app.post(
    '/connectors/shopify/authorize',
    {
      schema: operation({
        operationId: 'authorizeShopify',
        tag: TAG,
        access: 'staff',
        summary: 'Start connecting a Shopify store',
        description: `The shop's authorize page; its state is bound to this session for 10 minutes. ${WHO}`,
        body: ShopifyAuthorizeBody,
        answers: { 200: { description: 'Where to send the browser', schema: ShopifyAuthorizeSchema } },
        problems: { 'validation-failed': 'shop is not a myshopify.com domain.', conflict: 'No Shopify app is configured.' },
      }),
    },
    async (req, reply) =>
      runWrite(req, reply, ctxFor(req, services), {
        status: 200,
        verb: startShopifyAuthorize,
        input: { shop: req.body.shop, sessionToken: sessionOf(req)?.token ?? null },
      }),
  );

  app.get(
    '/connectors/shopify/locations',
    {
      schema: operation({
        operationId: 'listShopifyLocations',
        tag: TAG,
        access: 'staff',
        summary: "List the Shopify store's locations",
        description: `None while not connected. ${WHO}`,
        answers: { 200: { description: 'The locations', schema: ShopifyLocationListSchema } },
        problems: { conflict: 'Shopify refused the token.', unavailable: 'Shopify did not answer; try again.' },
      }),
    },
    async (req) => ({ object: 'list' as const, data: await listShopifyLocations(ctxFor(req, services)) }),
  );

  app.patch(
    '/connectors/shopify',
    {
      schema: operation({
        operationId: 'updateShopifyConnection',
        tag: TAG,
        access: 'staff',
        summary: 'Choose the Shopify location, queue and options',
        description: `Choosing an active location completes the connection. ${WHO}`,
        body: ShopifySettingsBody,
        answers: { 200: Connection },
        problems: { 'validation-failed': '', conflict: 'Not connected.' },
      }),
    },
    async (req, reply) => {
      const ctx = ctxFor(req, services);
      const settings = await checkShopifySettings(ctx, req.body ?? {});
      return runWrite(req, reply, ctx, { status: 200, verb: saveShopifySettings, input: settings });
    },
  );

  app.delete(
    '/connectors/shopify',
    {
      schema: operation({
        operationId: 'disconnectShopify',
        tag: TAG,
        access: 'staff',
        summary: 'Disconnect Shopify',
        description: `Erases the token here; the app stays installed in the store until its owner removes it. ${WHO}`,
        answers: { 200: Connection },
      }),
    },
    async (req, reply) => runWrite(req, reply, ctxFor(req, services), { status: 200, verb: eraseShopifyConnection, input: undefined }),
  );
}
