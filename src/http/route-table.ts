// Every route of the public server, in one table: the groups it is made of, what each serves, who
// may call it and which code decides that, then the groups of the installed modules (channels and
// connectors declare theirs: decision 0076). server.ts mounts the table and nothing else adds a
// route: one added outside a group stops the server at start. What was mounted, group by group,
// is read back with mountedRoutes(); test/api/isolation.test.ts walks every /v1 route from it.
// Decision: docs/decisions/0028-route-table.md.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../core/ctx.ts';
import type { FeatureModule } from '../core/module.ts';
import type { VapidKeyStore } from '../channels/vapid.ts';
import type { Live } from '../realtime/live.ts';
import type { RateLimiter } from '../realtime/limiter.ts';
import { SECURITY, type Access } from './operation.ts';
import { registerOpenApi } from './openapi.ts';
import { registerDocsUi } from './docs-page.ts';
import { loadWebAssets, type WebAssets } from './pages/assets.ts';
import { registerBoardPage } from './routes/board-page.ts';
import { registerCustomerPage, type LivePagesDeps } from './routes/customer-page.ts';
import { registerHealthRoutes } from './routes/health.ts';
import { registerPublicPages } from './routes/pages.ts';
import { PUSH_SCRIPT_PATH } from './routes/push.ts';
import { registerStaffApp } from './routes/staff-app.ts';
import { registerStripeWebhook } from './routes/stripe-webhook.ts';
import { STRIPE_WEBHOOK_PATH } from '../domain/stripe-config.ts';
import { registerWebAssets } from './routes/web-assets.ts';
import { registerApiScope } from './routes/v1/index.ts';
import { registerSignIn } from './routes/v1/sessions.ts';
import { registerAccountLinks } from './routes/v1/account-links.ts';
import { registerSignup } from './routes/v1/signup.ts';

/** The route groups, named for who they serve; an installed module's groups are named by the module. */
export type Scope =
  | 'health'
  | 'docs'
  | 'api'
  | 'sign-in'
  | 'account-links'
  | 'sign-up'
  | 'staff-page'
  | 'customer-page'
  | 'board'
  | 'stripe'
  | 'assets'
  | (string & {});

/**
 * What an installed module (core/module.ts) mounts: route groups of its own (each in the table's
 * bookkeeping like the built-in ones), and operations in the authenticated /v1 scope.
 */
export type ModuleRoutes = {
  readonly groups?: readonly RouteGroup[];
  api?(app: FastifyInstance, services: Services): void;
};

/** A channel or connector as the app installs it: its declaration, with the routes this layer mounts. */
export type AppModule = FeatureModule<ModuleRoutes>;

export type RouteDeps = {
  services: Services;
  limiter: RateLimiter;
  lastUsedKeys: Set<string>;
  live: Live;
  vapid: VapidKeyStore;
  /** The installed channels' and connectors' modules: their routes are mounted after the table's groups. */
  modules: readonly AppModule[];
  /** Dependencies the node serves without, degraded (Redis): /readyz reports them, never a 503. */
  readiness: Record<string, () => Promise<void>>;
  shedding: () => boolean;
  /** The server's answer to an unknown path or method (a problem, with Allow). */
  notFound: (req: FastifyRequest, reply: FastifyReply) => FastifyReply;
};

/** What the groups share: the dependencies, and the customer page's and board's static files (read once). */
export type MountDeps = RouteDeps & { pages: LivePagesDeps };

export type RouteGroup = {
  scope: Scope;
  /** What it serves, for the reader (mountedRoutes() has the routes themselves). */
  paths: string;
  /** Who may call, and the code that decides it. */
  auth: string;
  mount(app: FastifyInstance, deps: MountDeps): void | PromiseLike<void>;
};

/** In mounting order: the document's collector (docs) comes before the routes it documents. */
export const ROUTE_TABLE: readonly RouteGroup[] = [
  {
    scope: 'docs',
    paths: '/v1/openapi.json, /docs, /problems/{code}',
    auth: 'anyone: the published reference and the problem types every problem document links to',
    mount: async (app, d) => {
      await registerOpenApi(app, d.services.config);
      await registerDocsUi(app);
      registerPublicPages(app);
    },
  },
  {
    scope: 'health',
    paths: '/healthz, /readyz',
    auth: 'anyone (load balancers, orchestrators); they say nothing about any tenant',
    mount: (app, d) => registerHealthRoutes(app, d),
  },
  {
    scope: 'api',
    paths: '/v1/… (every operation but sign-in)',
    auth:
      "an API key or a staff session, checked in the scope's onRequest hook (plugins/auth.ts, plugins/session.ts) before any route runs; " +
      'tenant and mode come from them alone (ctxFor). What the caller may do is decided in the actions: requireRole, requireStaffRole ' +
      '(API keys get 403 on keys and users), requireWebhookAccess; the test helpers refuse live keys before validation',
    mount: (app, d) => app.register(async (v1) => registerApiScope(v1, d), { prefix: '/v1' }),
  },
  {
    scope: 'sign-in',
    paths: 'POST /v1/sessions',
    auth: 'email and password (actions/staff-session.ts), throttled per address and email (sign-in-throttle.ts), same-site requests only',
    mount: (app, d) => app.register(async (scope) => registerSignIn(scope, d.services, d.limiter), { prefix: '/v1' }),
  },
  {
    scope: 'account-links',
    paths: 'POST /v1/invitations/accept, POST /v1/email_changes/confirm',
    auth: "the emailed link's token (a capability for one invitation or email change, stored hashed), throttled per address (mail-throttle.ts), same-site requests only",
    mount: (app, d) => app.register(async (scope) => registerAccountLinks(scope, d.services, d.limiter), { prefix: '/v1' }),
  },
  {
    scope: 'sign-up',
    paths: 'GET, POST /v1/signup, POST /v1/signup/verify, POST /v1/password_resets, POST /v1/password_resets/complete',
    auth:
      'anyone: sign-up (when SIGNUP allows it), a forgotten password and the emailed links (single use, stored hashed; actions/signup.ts, verify-email.ts, password-reset.ts), ' +
      'throttled per address and per email (signup-throttle.ts); the same answer whether or not an email is known; the verification, which signs in, same-site only',
    mount: (app, d) => app.register(async (scope) => registerSignup(scope, d.services, d.limiter), { prefix: '/v1' }),
  },
  {
    scope: 'staff-page',
    paths: '/staff, /staff/*',
    auth: "anyone: the page's files; everything it shows comes through /v1 with the session cookie",
    mount: (app) => registerStaffApp(app),
  },
  {
    scope: 'customer-page',
    paths: '/t/{token}, /t/{token}/…',
    auth: "the ticket link's token (a capability for one ticket), rate-limited per link and per address (live-limits.ts)",
    mount: (app, d) => {
      endStreamsOnClose(app, d.live);
      registerCustomerPage(app, d.pages);
    },
  },
  {
    scope: 'board',
    paths: '/board/{token}, /board/{token}/…',
    auth: "the display link's token (a capability for one board), rate-limited like ticket links",
    mount: (app, d) => {
      endStreamsOnClose(app, d.live);
      registerBoardPage(app, d.pages);
    },
  },
  {
    scope: 'stripe',
    paths: `POST ${STRIPE_WEBHOOK_PATH}`,
    auth:
      "Stripe: the Stripe-Signature header over the raw body, keyed with STRIPE_WEBHOOK_SECRET and checked by the stripe package's " +
      'constructEvent (decision 0084); anything else is 403, and every request is 403 without Stripe configured',
    mount: (app, d) => app.register(async (scope) => registerStripeWebhook(scope, d.services)),
  },
  {
    scope: 'assets',
    paths: '/assets/{file}, /sw.js',
    auth: "anyone: the pages' static files",
    mount: (app, d) => registerWebAssets(app, d.pages.assets),
  },
];

// Pages' and boards' streams are long-lived: a graceful shutdown would wait for them forever
// (clients reconnect to another node). Closing the hub twice is harmless.
function endStreamsOnClose(app: FastifyInstance, live: Live): void {
  app.addHook('preClose', async () => {
    await live.hub.close();
  });
}

export type MountedRoute = {
  method: string;
  url: string;
  scope: Scope;
  /** The operation's stable id (operation.ts); null for the pages and files. */
  operationId: string | null;
  /** Who may call, as documented (operation.ts); null for the pages and files. */
  access: Access | null;
};

const mountedByServer = new WeakMap<FastifyInstance, MountedRoute[]>();

/** The routes a server built by buildServer has, each with its group. */
export function mountedRoutes(app: FastifyInstance): readonly MountedRoute[] {
  return mountedByServer.get(app) ?? [];
}

const accessOf = (security: unknown): Access | null =>
  security === undefined
    ? null
    : ((Object.keys(SECURITY) as Access[]).find((a) => JSON.stringify(SECURITY[a]) === JSON.stringify(security)) ?? null);

export async function mountRouteTable(app: FastifyInstance, deps: RouteDeps): Promise<void> {
  const assets: WebAssets = loadWebAssets();
  const d: MountDeps = {
    ...deps,
    pages: { services: deps.services, live: deps.live, limiter: deps.limiter, assets, pushScript: PUSH_SCRIPT_PATH },
  };
  const mounted: MountedRoute[] = [];
  const strays: string[] = [];
  // Fastify announces each route as it is added (in a group's own scopes too, which are loaded
  // before the group's mount resolves), so the group being mounted is the route's group.
  let mounting: RouteGroup | null = null;
  app.addHook('onRoute', (route) => {
    const schema = route.schema as { operationId?: string; security?: unknown } | undefined;
    for (const method of Array.isArray(route.method) ? route.method : [route.method]) {
      if (mounting === null) {
        strays.push(`${method} ${route.url}`);
        continue;
      }
      mounted.push({
        method,
        url: route.url,
        scope: mounting.scope,
        operationId: schema?.operationId ?? null,
        access: accessOf(schema?.security),
      });
    }
  });
  // The table's groups, then each installed module's (core/module.ts): the table names no module.
  for (const group of [...ROUTE_TABLE, ...deps.modules.flatMap((m) => m.routes?.groups ?? [])]) {
    mounting = group;
    await group.mount(app, d);
  }
  mounting = null;
  app.addHook('onReady', async () => {
    if (strays.length > 0) throw new Error(`Routes mounted outside src/http/route-table.ts: ${strays.join(', ')}`);
    const undocumented = mounted.filter(
      (r) =>
        (r.scope === 'api' || r.scope === 'sign-in' || r.scope === 'account-links' || r.scope === 'sign-up') &&
        r.method !== 'HEAD' &&
        r.operationId === null,
    );
    if (undocumented.length > 0)
      throw new Error(`/v1 routes without an operation() schema: ${undocumented.map((r) => `${r.method} ${r.url}`).join(', ')}`);
  });
  mountedByServer.set(app, mounted);
}
