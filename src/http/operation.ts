// What the API reference says about one route, declared beside the route: a stable operationId,
// a summary, a description, its tag, who may call it, and the answers of its own. What every
// route shares (the problems of the catalogue, RateLimit, Request-Id, idempotency) is added to
// the document in one place, openapi-answers.ts, from what is declared here.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Static, TSchema, TUnsafe } from 'typebox';
import type { ErrorCode } from '../domain/errors.ts';

/** The reference's sections, in this order, with what each says at its top. */
export const TAGS = {
  Tickets:
    'Pickup tickets. Create one when the order is placed, print its `display_number` and `url` (as a QR code) on the receipt, ' +
    'and mark it ready when the order is plated: readybell rings the customer and says truthfully what reached them.',
  'Test helpers':
    'Play the customer with a test key (`rk_test_…`): each call does exactly what a tap on the customer page does, events and webhooks included.',
  Events:
    "Everything that happened to the branch's tickets, kept 30 days: the same events webhooks deliver. Page through them to catch up after downtime.",
  'Live updates':
    "A server-sent event stream of the branch's changes, for a POS that would rather listen than poll; it works behind NAT, with no public URL.",
  'Webhook endpoints': 'Where readybell POSTs signed events, and the log of every delivery and attempt.',
  'Webhook events':
    'What readybell POSTs to your endpoints: one signed event per change, with the ticket as it was then. ' +
    'New event types may be added within v1: answer 2xx to the ones you do not know and ignore them. ' +
    'The body is the stored event, byte for byte, the same on every attempt (also in `GET /v1/events/{id}`). ' +
    'Deliveries come at least once and in no guaranteed order: deduplicate by `id` and order by `created_at`.',
  Branch: 'The shop the API key belongs to, and its settings.',
  Queues: 'Lines of display numbers (`A-1`, `A-2`, …), counted from 1 each business day.',
  'Display boards': 'Links for the TV by the counter that shows the numbers being prepared and ready, and calls them out loud.',
  Announcements: 'A note shown on every waiting customer\'s page and on the boards ("The kitchen is running 10 minutes late").',
  Insights:
    "How the counter performs, in the branch's own calendar: tickets, preparation and pickup times, rings and how they reached customers, " +
    "by day, hour and weekday, against an earlier period; and a period's tickets as CSV. For API keys and the manager and owner roles.",
  'Staff sessions':
    'Sign-in for the staff page, which uses the same API with a session cookie instead of an API key. Integrators do not need these.',
  'Staff administration':
    'API keys and staff users, managed by an owner from the staff page (API keys get 403). Integrators do not need these.',
  Connectors:
    'The point-of-sale system a shop already has (Square), connected by an owner from the staff page (API keys get 403): its orders become tickets. Integrators do not need these.',
  Billing:
    "The account's plan, paid through Stripe where the operator configured it: Checkout to subscribe, the customer portal to change or cancel. " +
    'For the owner in the staff page (API keys get 403). Integrators do not need these.',
} as const;

export type Tag = keyof typeof TAGS;

/**
 * Who may call: `api`, an API key or a staff session; `staff`, a staff session only (an API key
 * gets 403); `public`, anyone (sign-in).
 */
export type Access = 'api' | 'staff' | 'public';

/**
 * What the document declares for each: an `api` operation names the API key alone, though the
 * staff page's session is taken there too (the staffSession scheme says so). Generators flatten
 * an operation's alternatives into one list and give the configured key to each scheme in it:
 * `@hey-api/openapi-ts` sent the key as the session cookie and as X-CSRF-Token as well
 * (docs/decisions/0067-integrator-conventions.md).
 */
export const SECURITY: Record<Access, Array<Record<string, string[]>>> = {
  api: [{ apiKey: [] }],
  staff: [{ staffSession: [] }],
  public: [],
};

/** Where an operation hands its own problems to openapi-answers.ts; not in the published document. */
export const OWN_PROBLEMS = 'x-own-problems';

/** A success answer; `example`, a whole answer as it would come (checked against `schema` by the tests and the linter). */
export type Answer = { description: string; schema: TSchema; mediaType?: string; example?: unknown };

export type OperationSpec<P extends TSchema | undefined, Q extends TSchema | undefined, B extends TSchema | undefined> = {
  /** Stable: generated clients name their methods after it. A camelCase verb phrase. */
  operationId: string;
  summary: string;
  description: string;
  tag: Tag;
  access?: Access;
  params?: P;
  querystring?: Q;
  body?: B;
  /** The success answers, by status. */
  answers: Record<number, Answer>;
  /**
   * Problems this operation gives besides those every operation can give, each with what it
   * means here ('' for the catalogue's text).
   */
  problems?: Partial<Record<ErrorCode, string>>;
};

/**
 * A request without a body is validated as `{}` (server.ts), so a body whose fields are all
 * optional may be absent: the handler sees `undefined` then, and its type says so.
 */
// biome-ignore lint/complexity/noBannedTypes: `{} extends T` is how a type asks whether T has no required property; here `{}` is the empty object type on purpose
type RequestBody<B> = B extends TSchema ? ({} extends Static<B> ? TUnsafe<Static<B> | undefined> : B) : B;

/**
 * The app as route files use it: with the TypeBox type provider, a handler's `req.params`,
 * `req.query` and `req.body` have the types of the schemas `operation()` (or `hidden()`)
 * declares, so no handler restates them with a cast.
 */
export const typed = (app: FastifyInstance) => app.withTypeProvider<TypeBoxTypeProvider>();

type RequestParts<P, Q, B> = { params: P; querystring: Q; body: RequestBody<B> };

/**
 * The `schema` of a route left out of the document (the customer page, the board, their assets):
 * its request is validated and typed like an operation's.
 */
export function hidden<
  P extends TSchema | undefined = undefined,
  Q extends TSchema | undefined = undefined,
  B extends TSchema | undefined = undefined,
>(parts: { params?: P; querystring?: Q; body?: B } = {}) {
  return { hide: true, ...parts } as { hide: true } & RequestParts<P, Q, B>;
}

/** The route's `schema`: it validates the request and is this route's part of the document. */
export function operation<
  P extends TSchema | undefined = undefined,
  Q extends TSchema | undefined = undefined,
  B extends TSchema | undefined = undefined,
>(spec: OperationSpec<P, Q, B>) {
  const schema = {
    operationId: spec.operationId,
    summary: spec.summary,
    description: spec.description,
    tags: [spec.tag],
    security: SECURITY[spec.access ?? 'api'],
    ...(spec.params === undefined ? {} : { params: spec.params }),
    ...(spec.querystring === undefined ? {} : { querystring: spec.querystring }),
    ...(spec.body === undefined ? {} : { body: spec.body }),
    response: Object.fromEntries(
      Object.entries(spec.answers).map(([status, a]) => [
        status,
        {
          description: a.description,
          content: {
            [a.mediaType ?? 'application/json']: { schema: a.schema, ...(a.example === undefined ? {} : { example: a.example }) },
          },
        },
      ]),
    ),
    [OWN_PROBLEMS]: spec.problems ?? {},
  };
  // Typed as declared, so the type provider reads the request's types from it. The answers stay
  // untyped here: write handlers answer through runWrite (a stored answer, sent as text), so the
  // answers' types are held by the presenters, which return the schemas' Static types.
  return schema as Omit<typeof schema, 'params' | 'querystring' | 'body'> & RequestParts<P, Q, B>;
}
