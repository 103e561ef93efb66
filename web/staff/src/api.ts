// Every request the staff page can make, in one table, and the one function that makes them.
// The page is a client of the public /v1 API and nothing else (docs/decisions/0008-staff-page.md);
// test/api/staff-parity.test.ts reads ROUTES and checks that each is a documented /v1 operation,
// and that no other file of the page calls fetch or EventSource itself.
import { EventSource as FetchEventSource } from 'eventsource';
import type { Problem } from './types.ts';

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export const ROUTES = {
  signIn: ['POST', '/v1/sessions'],
  session: ['GET', '/v1/session'],
  signOut: ['DELETE', '/v1/session'],
  switchBranch: ['POST', '/v1/session/branch'],
  changePassword: ['POST', '/v1/session/password'],
  stream: ['GET', '/v1/stream'],

  tickets: ['GET', '/v1/tickets'],
  ticket: ['GET', '/v1/tickets/{id}'],
  ticketQr: ['GET', '/v1/tickets/{id}/qr.svg'],
  createTicket: ['POST', '/v1/tickets'],
  ready: ['POST', '/v1/tickets/{id}/ready'],
  ring: ['POST', '/v1/tickets/{id}/ring'],
  collect: ['POST', '/v1/tickets/{id}/collect'],
  cancel: ['POST', '/v1/tickets/{id}/cancel'],

  branch: ['GET', '/v1/branch'],
  updateBranch: ['PATCH', '/v1/branch'],
  queues: ['GET', '/v1/queues'],
  createQueue: ['POST', '/v1/queues'],
  updateQueue: ['PATCH', '/v1/queues/{name}'],
  deleteQueue: ['DELETE', '/v1/queues/{name}'],

  apiKeys: ['GET', '/v1/api_keys'],
  createApiKey: ['POST', '/v1/api_keys'],
  revokeApiKey: ['DELETE', '/v1/api_keys/{id}'],
  users: ['GET', '/v1/users'],
  inviteUser: ['POST', '/v1/users'],
  updateUser: ['PATCH', '/v1/users/{id}'],
  removeUser: ['DELETE', '/v1/users/{id}'],

  displays: ['GET', '/v1/displays'],
  createDisplay: ['POST', '/v1/displays'],
  deleteDisplay: ['DELETE', '/v1/displays/{id}'],
  announcements: ['GET', '/v1/announcements'],
  createAnnouncement: ['POST', '/v1/announcements'],
  deleteAnnouncement: ['DELETE', '/v1/announcements/{id}'],

  webhookEndpoints: ['GET', '/v1/webhook_endpoints'],
  createWebhookEndpoint: ['POST', '/v1/webhook_endpoints'],
  updateWebhookEndpoint: ['PATCH', '/v1/webhook_endpoints/{id}'],
  deleteWebhookEndpoint: ['DELETE', '/v1/webhook_endpoints/{id}'],
  webhookSecret: ['GET', '/v1/webhook_endpoints/{id}/secret'],
  rotateWebhookSecret: ['POST', '/v1/webhook_endpoints/{id}/rotate_secret'],
  testWebhook: ['POST', '/v1/webhook_endpoints/{id}/test'],
  webhookDeliveries: ['GET', '/v1/webhook_endpoints/{id}/deliveries'],
  retryWebhookDelivery: ['POST', '/v1/webhook_deliveries/{id}/retry'],
} as const satisfies Record<string, readonly [Method, string]>;

export type RouteName = keyof typeof ROUTES;

type Params = Record<string, string>;
type Query = Record<string, string | number | undefined>;

/** The URL of a route, with its {parameters} filled in (encoded) and an optional query string. */
export function url(name: RouteName, params: Params = {}, query: Query = {}): string {
  const path = ROUTES[name][1].replace(/\{(\w+)\}/g, (_m, p: string) => {
    const v = params[p];
    if (v === undefined) throw new Error(`${name} needs the parameter ${p}`);
    return encodeURIComponent(v);
  });
  const qs = Object.entries(query)
    .filter(([, v]) => v !== undefined && v !== '')
    .map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`)
    .join('&');
  return qs === '' ? path : `${path}?${qs}`;
}

export class ApiError extends Error {
  readonly status: number;
  readonly problem: Problem;
  constructor(status: number, problem: Problem) {
    super(problem.detail);
    this.status = status;
    this.problem = problem;
  }
}

export type Mode = 'live' | 'test';
let mode: Mode = 'live';
/**
 * Live or test data (docs/decisions/0003-modes-and-tenancy.md). Every request names its mode in
 * Readybell-Mode, the live stream included, so no request acts on the other mode's data.
 */
export function setMode(m: Mode): void {
  mode = m;
}
const modeHeaders = (): Record<string, string> => (mode === 'test' ? { 'readybell-mode': 'test' } : {});

let csrfToken = '';
/** Set from the session (sign-in or GET /v1/session); sent on every unsafe request. */
export function setCsrfToken(token: string): void {
  csrfToken = token;
}

type Listener = () => void;
const expiredListeners = new Set<Listener>();
/** Called when a request finds the session gone (401): the page shows sign-in again. */
export function onSessionExpired(fn: Listener): () => void {
  expiredListeners.add(fn);
  return () => expiredListeners.delete(fn);
}

export function newIdempotencyKey(prefix = 'staff'): string {
  return `${prefix}:${crypto.randomUUID()}`;
}

export type CallOptions = { params?: Params; query?: Query; body?: unknown; idempotencyKey?: string };

/**
 * Calls one /v1 operation. Unsafe methods always carry an Idempotency-Key (the caller's, when a
 * retry or a double tap must be recognised as the same intent) and the CSRF token.
 */
export async function call<T>(name: RouteName, o: CallOptions = {}): Promise<T> {
  const [method] = ROUTES[name];
  const headers: Record<string, string> = { accept: 'application/json', ...modeHeaders() };
  if (o.body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET') {
    headers['x-csrf-token'] = csrfToken;
    headers['idempotency-key'] = o.idempotencyKey ?? newIdempotencyKey();
  }
  const res = await send(url(name, o.params, o.query), {
    method,
    headers,
    body: o.body === undefined ? undefined : JSON.stringify(o.body),
    credentials: 'same-origin',
  });
  const text = await res.text();
  const body: unknown = text === '' ? undefined : JSON.parse(text);
  if (!res.ok) fail(name, res.status, body as Problem);
  return body as T;
}

async function send(href: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(href, init);
  } catch {
    throw new ApiError(0, {
      type: 'about:blank',
      title: 'Offline',
      status: 0,
      code: 'network',
      detail: 'The server cannot be reached; check the connection and try again.',
    });
  }
}

function fail(name: RouteName, status: number, problem: Problem): never {
  if (status === 401 && name !== 'signIn') for (const fn of expiredListeners) fn();
  throw new ApiError(status, problem);
}

/** An image the API draws (a ticket's QR code), as an object URL the caller revokes. */
export async function image(name: RouteName, params: Params): Promise<string> {
  const res = await send(url(name, params), { headers: modeHeaders(), credentials: 'same-origin' });
  if (!res.ok) fail(name, res.status, (await res.json().catch(() => ({}))) as Problem);
  return URL.createObjectURL(await res.blob());
}

/**
 * The live stream of the session's branch in the current mode; the caller owns it. A browser's own
 * EventSource cannot send headers, so this one is the same standard client built on fetch.
 */
export function openStream(): EventSource {
  const headers = modeHeaders();
  return new FetchEventSource(url('stream'), {
    fetch: (input, init) => fetch(input, { ...init, headers: { ...init.headers, ...headers }, credentials: 'same-origin' }),
  }) as unknown as EventSource;
}
