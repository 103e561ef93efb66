// /v1/connectors/square: the owner's side of the Square connector (the staff page's Square screen,
// docs/decisions/0073), mounted in the authenticated /v1 scope through the connector's module.
// Staff sessions with the owner role only; API keys get 403. Square is asked before a write's
// transaction (locations, revoke), never inside one.
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../core/ctx.ts';
import {
  checkSquareSettings,
  eraseSquareConnection,
  listSquareLocations,
  readSquareConnection,
  revokeSquare,
  saveSquareSettings,
} from './connection.ts';
import { authorizeVerb } from '../oauth-flow.ts';
import { SQUARE_OAUTH } from './oauth.ts';
import {
  SquareAuthorizeSchema,
  SquareConnectionSchema,
  SquareLocationListSchema,
  SquareSettingsBody,
} from '../../contract/square-schemas.ts';
import { Ref } from '../../contract/schema-parts.ts';
import { operation, typed } from '../../http/operation.ts';
import { sessionOf } from '../../http/plugins/session.ts';
import { runWrite } from '../../http/write.ts';
import { ctxFor } from '../../http/routes/v1/context.ts';

const TAG = 'Connectors';
/** The shared OAuth flow's verb, with Square's settings (connectors/oauth-flow.ts). */
const startSquareAuthorize = authorizeVerb(SQUARE_OAUTH, 'Square');
const WHO = 'The owner role in the staff page; API keys get 403.';
const Connection = { description: "The branch's Square connection", schema: Ref(SquareConnectionSchema) };

export function registerSquareRoutes(fastify: FastifyInstance, services: Services): void {
  const app = typed(fastify);

  app.get(
    '/connectors/square',
    {
      schema: operation({
        operationId: 'getSquareConnection',
        tag: TAG,
        access: 'staff',
        summary: 'Get the Square connection',
        description: WHO,
        answers: { 200: Connection },
      }),
    },
    async (req) => readSquareConnection(ctxFor(req, services)),
  );

  app.post(
    '/connectors/square/authorize',
    {
      schema: operation({
        operationId: 'authorizeSquare',
        tag: TAG,
        access: 'staff',
        summary: 'Start connecting Square',
        description: `Square's authorize page; its state is bound to this session for 10 minutes. ${WHO}`,
        answers: { 200: { description: 'Where to send the browser', schema: SquareAuthorizeSchema } },
        problems: { conflict: 'No Square application is configured.' },
      }),
    },
    async (req, reply) =>
      runWrite(req, reply, ctxFor(req, services), {
        status: 200,
        verb: startSquareAuthorize,
        input: { sessionToken: sessionOf(req)?.token ?? null },
      }),
  );

  app.get(
    '/connectors/square/locations',
    {
      schema: operation({
        operationId: 'listSquareLocations',
        tag: TAG,
        access: 'staff',
        summary: "List the Square merchant's locations",
        description: `None while not connected. ${WHO}`,
        answers: { 200: { description: 'The locations', schema: SquareLocationListSchema } },
        problems: {
          conflict: 'The branch is not connected, or Square refused its token.',
          unavailable: 'Square did not answer; try again.',
        },
      }),
    },
    async (req) => ({ object: 'list' as const, data: await listSquareLocations(ctxFor(req, services)) }),
  );

  app.patch(
    '/connectors/square',
    {
      schema: operation({
        operationId: 'updateSquareConnection',
        tag: TAG,
        access: 'staff',
        summary: 'Choose the location, queue and options',
        description: `Choosing an ACTIVE location completes the connection. ${WHO}`,
        body: SquareSettingsBody,
        answers: { 200: Connection },
        problems: { 'validation-failed': '', conflict: 'Not connected.' },
      }),
    },
    async (req, reply) => {
      const ctx = ctxFor(req, services);
      const settings = await checkSquareSettings(ctx, req.body ?? {});
      return runWrite(req, reply, ctx, { status: 200, verb: saveSquareSettings, input: settings });
    },
  );

  app.delete(
    '/connectors/square',
    {
      schema: operation({
        operationId: 'disconnectSquare',
        tag: TAG,
        access: 'staff',
        summary: 'Disconnect Square',
        description: `Revokes the token at Square and erases it here. ${WHO}`,
        answers: { 200: Connection },
        problems: { unavailable: 'Nothing was erased.' },
      }),
    },
    async (req, reply) => {
      const ctx = ctxFor(req, services);
      await revokeSquare(ctx);
      return runWrite(req, reply, ctx, { status: 200, verb: eraseSquareConnection, input: undefined });
    },
  );
}
