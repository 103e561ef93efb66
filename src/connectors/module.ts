// A connector (port.ts) as the module the app installs (core/module.ts, decision 0076): its routes
// (the POS's webhook with the body kept raw, the shared OAuth flow's callback, the owner's /v1
// operations), its jobs, its token refresh as a scheduled job, its ticket hook and its health.
// Everything here is the same for every connector: a connector declares, this mounts.
import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { defineJobKind } from '../core/job-registry.ts';
import type { SchedulePayload } from '../core/module.ts';
import { hidden, typed } from '../http/operation.ts';
import { readToken } from '../http/plugins/session.ts';
import type { AppModule, MountDeps } from '../http/route-table.ts';
import { finishAuthorize } from './oauth-flow.ts';
import { callbackPath, type Connector, webhookPath } from './port.ts';

const Param = Type.Optional(Type.String({ maxLength: 2048 }));
const CallbackQuery = Type.Object({ code: Param, state: Param, error: Param, error_description: Param, response_type: Param });

/** The POS's side, outside /v1: the OAuth callback (a 303 to the connector's screen) and the webhook. */
function mountConnectorRoutes(app: FastifyInstance, d: MountDeps, c: Connector): void {
  const { services } = d;
  app.register(async (plain) => {
    const scope = typed(plain);
    scope.get(callbackPath(c.name), { schema: hidden({ querystring: CallbackQuery }) }, async (req, reply) => {
      const { code, state, error } = req.query;
      const outcome = await finishAuthorize(services, c.oauth, { code, state, error, sessionToken: readToken(req) });
      return reply.header('cache-control', 'no-store').redirect(`${c.screen}?${outcome}`, 303);
    });

    // A POS signs its webhooks over the body's exact bytes: it is kept as received, and parsed after the check.
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => done(null, body));
    scope.post(webhookPath(c.name), { schema: hidden() }, async (req, reply) => {
      const raw = typeof req.body === 'string' ? req.body : '';
      const outcome = await c.webhook(services, raw, req.headers);
      req.log.info({ connector: c.name, jobs: outcome.jobs, ignored: outcome.ignored }, 'connector webhook');
      return reply.code(200).send({ received: true });
    });
  });
}

export function connectorModule(c: Connector): AppModule {
  const refresh = defineJobKind<SchedulePayload>(`${c.name}_token_refresh`, 'webhook');
  return {
    name: c.name,
    kind: 'connector',
    config: c.config,
    configured: c.configured,
    jobs: c.jobs,
    schedules: [{ kind: refresh, everyMs: c.refreshEveryMs, run: c.refreshTokens }],
    ticketHooks: c.onTicketChange === undefined ? [] : [c.onTicketChange],
    health: c.health,
    schemas: c.schemas,
    screen: c.screen,
    routes: {
      groups: [
        {
          scope: c.name,
          paths: `GET ${callbackPath(c.name)}, POST ${webhookPath(c.name)}`,
          auth:
            "the POS: the callback's state, bound to the owner's staff session that asked for it (connectors/oauth-flow.ts); " +
            'webhooks verified by the connector over the raw body (its `webhook`); anything else is 403',
          mount: (app, d) => app.register(async (scope) => mountConnectorRoutes(scope, d, c)),
        },
      ],
      api: c.api,
    },
  };
}
