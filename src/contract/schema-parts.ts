// The building blocks of the API's schemas. The same TypeBox values validate requests and become
// the OpenAPI document, so each carries what the reference shows: a description and a realistic
// example (a renderer left to invent one shows random letters where an id or a queue name goes).
import { Type, type Static, type TSchema, type TUnsafe } from 'typebox';
import { ID_PREFIXES, type IdKind } from '../domain/ids.ts';

/** Ids as readybell makes them (10 characters of time, 16 random), all from one moment. */
export const EXAMPLE_IDS = {
  account: 'acct_01m81j19e1a884mkzbkbmsx8py',
  branch: 'br_01m81j194tb8kmycb0gheeaj9r',
  key: 'key_01m81j199c3546rrnzdeyvky57',
  user: 'usr_01m81j195q04jrn3wb7ej6zw2f',
  ticket: 'tk_01m81j19a75aagw39z4av2ch96',
  event: 'evt_01m81j19938brsk5jvvwj1b6bd',
  webhookEndpoint: 'we_01m81j192r63sbjxswgx2kegxr',
  webhookDelivery: 'whd_01m81j194mapyevq7wp0spgwam',
  display: 'dsp_01m81j196gasq5wx1hcb252ecw',
  announcement: 'ann_01m81j191rdq5rh1pkvw6pzca7',
  ring: 'rng_01m81j18pees95dsax2gr9sxv6',
  invitation: 'inv_01m81j197k2d4x8qpmwzr3tc5h',
} as const satisfies Partial<Record<IdKind, string>>;

export type ExampleIdKind = keyof typeof EXAMPLE_IDS;

export const EXAMPLE_TIME = '2026-11-22T12:00:00.000Z';
export const EXAMPLE_REQUEST_ID = 'req_Xk2v9QmH4c7PzR1b';
export const EXAMPLE_TICKET_URL = 'https://pickup.example.com/t/0C6Q3LKWR2N7XVHSOBI5PO6ARQTDZV4Z';

export const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

/** A string of a closed set: `{ type: string, enum }`, which renderers and code generators show as a choice. */
export const StringEnum = <const T extends readonly string[]>(
  values: T,
  options: { description?: string; default?: T[number] } = {},
): TUnsafe<T[number]> => Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });

/** An id in an answer: its prefix says what it names. */
export const Id = (kind: ExampleIdKind, description?: string) =>
  Type.String({ pattern: `^${ID_PREFIXES[kind]}_`, examples: [EXAMPLE_IDS[kind]], ...(description === undefined ? {} : { description }) });

/**
 * An id in a path. Not held to its prefix: a malformed id is a 404 like an unknown one, so that
 * no answer tells one from the other.
 */
export const IdParam = (kind: ExampleIdKind) =>
  Type.String({ maxLength: 64, description: `An id starting \`${ID_PREFIXES[kind]}_\``, examples: [EXAMPLE_IDS[kind]] });

/**
 * `{ $ref: <its $id> }`, a reference to a named component, typed as the object it names (a bare
 * `Type.Ref` is typed `unknown`).
 */
export const Ref = <T extends TSchema>(schema: T & { $id?: string }, options: { description?: string } = {}): TUnsafe<Static<T>> => {
  if (schema.$id === undefined) throw new Error('Ref: the schema has no $id');
  return Type.Unsafe<Static<T>>(Type.Ref(schema.$id, options));
};

/**
 * A moment, as every answer gives it: a named component, referred to by the 60-odd fields that
 * hold one instead of written out at each (issue 36: the document's size budget).
 */
export const TimestampSchema = Type.String({
  $id: 'Timestamp',
  format: 'date-time',
  description: 'RFC 3339 UTC with milliseconds',
  examples: [EXAMPLE_TIME],
});
export const Timestamp = Ref(TimestampSchema);

/** `{ object: "list", data, has_more }`, the shape of every list answer. */
export const ListOf = <T extends TSchema>(item: T, description: string) =>
  Type.Object({
    object: Type.Literal('list'),
    data: Type.Array(item, { description }),
    has_more: Type.Boolean({ description: 'Whether there are more after the last one; pass its id as `starting_after` to get them' }),
  });

/**
 * The values of a string union, checked by the compiler to be all of them: a value added to the
 * type and not here fails type-checking instead of going undocumented.
 */
export const allOf =
  <T extends string>() =>
  <const A extends readonly T[]>(values: A & ([T] extends [A[number]] ? unknown : never)): A =>
    values;
