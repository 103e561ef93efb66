// Types of index.js: every path, parameter, body and answer comes from schema.d.ts, generated
// from readybell's OpenAPI document.
import type { components, operations, paths, webhooks } from './schema.js';

export type { components, operations, paths, webhooks };

/** The problem document readybell answers with (`application/problem+json`). */
export type Problem = components['schemas']['Problem'];
export type ProblemCode = Problem['code'];

export declare class ReadybellError extends Error {
  readonly name: 'ReadybellError';
  readonly status: number;
  /** The problem's slug, e.g. `ticket-state-conflict`; undefined only for an answer that was not a problem document. */
  readonly code: ProblemCode | undefined;
  readonly type: string | undefined;
  readonly title: string | undefined;
  readonly detail: string | undefined;
  /** Quote it when asking for help. */
  readonly requestId: string | undefined;
  /** The whole document, extension fields (such as `errors` or `status` of a conflict) included. */
  readonly problem: Partial<Problem> & Record<string, unknown>;
}

/** readybell could not be reached (no answer, or none within `timeoutMs`) after every attempt. */
export declare class ReadybellConnectionError extends Error {
  readonly name: 'ReadybellConnectionError';
  /** The URL that was requested, query included. */
  readonly url: string;
  readonly attempts: number;
  /** The last attempt's error (fetch's TypeError, whose own cause is the network error, or a TimeoutError). */
  readonly cause: unknown;
}

export type ClientOptions = {
  /** The service's address, e.g. `https://pickup.example.com`. */
  baseUrl: string;
  /** `rk_test_…` or `rk_live_…`. */
  apiKey?: string;
  /** Attempts per call, the first included (default 4). */
  maxAttempts?: number;
  /** Per attempt (default 10 000 ms); a timed-out attempt is retried with the same Idempotency-Key. */
  timeoutMs?: number;
  /** Upper bound of a wait between attempts, Retry-After included (default 30 000 ms). */
  maxDelayMs?: number;
  fetch?: typeof globalThis.fetch;
  /** How to wait between attempts (tests pass a fake). */
  sleep?: (ms: number) => Promise<void>;
};

type Method = 'get' | 'post' | 'patch' | 'put' | 'delete';
type Operation<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;
/** The paths that have an operation for `M`. */
export type PathsWith<M extends Method> = { [P in keyof paths]: paths[P][M] extends { responses: unknown } ? P : never }[keyof paths];

type JsonOf<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type Params<O> = O extends { parameters: infer A } ? A : never;
type BodyOf<O> = O extends { requestBody?: infer R } ? JsonOf<NonNullable<R>> : never;
/** Required when the operation's requestBody is, optional when it is optional, absent when there is none. */
type BodyInit<O> = [BodyOf<O>] extends [never]
  ? { body?: never }
  : O extends { requestBody: unknown }
    ? { body: BodyOf<O> }
    : { body?: BodyOf<O> };
// biome-ignore lint/complexity/noBannedTypes: `{} extends T` is how a type asks whether T has no required property; here `{}` is the empty object type on purpose
type ParamsInit<O> = {} extends Params<O> ? { params?: Params<O> } : { params: Params<O> };
type Success<O> = O extends { responses: infer R }
  ? { [S in keyof R]: S extends 200 | 201 | 202 ? JsonOf<R[S]> : S extends 204 ? undefined : never }[keyof R]
  : never;

export type RequestInit<O> = ParamsInit<O> & BodyInit<O> & { headers?: Record<string, string>; signal?: AbortSignal };
export type Answer<O> = { data: Success<O>; response: Response };

type Call<M extends Method> = <P extends PathsWith<M>>(
  path: P,
  // biome-ignore lint/complexity/noBannedTypes: `{} extends T` is how a type asks whether T has no required property; here `{}` is the empty object type on purpose
  ...init: {} extends RequestInit<Operation<P, M>> ? [init?: RequestInit<Operation<P, M>>] : [init: RequestInit<Operation<P, M>>]
) => Promise<Answer<Operation<P, M>>>;

export type Client = {
  GET: Call<'get'>;
  POST: Call<'post'>;
  PATCH: Call<'patch'>;
  PUT: Call<'put'>;
  DELETE: Call<'delete'>;
};

export declare function createClient(options: ClientOptions): Client;
