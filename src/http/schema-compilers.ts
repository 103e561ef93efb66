// The validators and response serializers Fastify asks for each route's schemas: compiled when
// first used, once per schema, rather than for every route and status at start.
//
// Why: building an app compiled about 600 serializers and 300 validators, most of them the same
// schema again (every operation's problem answers, each GET's HEAD twin), and fast-json-stringify
// re-reads every shared schema for each one: 0.4 to 0.7 s of CPU per app start, though a node
// answers with a fraction of its routes and statuses for minutes after it starts, and a test
// file uses a handful. Compiled code depends only on the schema and the shared schemas it may
// reference, so it is kept per set of shared schemas (by their text) and per schema (by its
// text): the same schema compiles once per process, however many routes or apps use it. The
// first answer that uses a schema pays its compilation (about 1 ms); compileAll() compiles what
// is still pending, so that a test finds a schema that would not compile without calling every
// route.
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

type Serialize = (data: unknown) => string;
type Validate = (data: unknown) => { value?: unknown; error?: Error } | boolean;
type Route = { schema: object; method: string; url: string; httpStatus?: string; contentType?: string };

export type SchemaCompilers = {
  validator: (route: { schema: object; httpPart?: string; method?: string; url?: string }) => Validate;
  serializer: (route: Route) => Serialize;
};

/** Compiles on first call, once: `get()` is the compiled function, `describe` names it in an error. */
type Lazy<F> = { get(): F; describe: string };

const bySchemaSet = new Map<string, SchemaCompilers>();
const pending = new Set<Lazy<unknown>>();

/** The compilers for an app whose shared schemas (addSchema) are `schemas`. */
export function schemaCompilers(schemas: readonly object[]): SchemaCompilers {
  const key = JSON.stringify(schemas);
  let compilers = bySchemaSet.get(key);
  if (compilers === undefined) bySchemaSet.set(key, (compilers = build(schemas)));
  return compilers;
}

/** Compiles every schema not compiled yet; throws naming the route of the first that fails. */
export function compileAll(): void {
  for (const lazy of pending) {
    try {
      lazy.get();
    } catch (err) {
      throw new Error(`${lazy.describe}: ${(err as Error).message}`);
    }
  }
}

function lazy<F>(describe: string, compile: () => F): Lazy<F> {
  let compiled: F | undefined;
  const entry: Lazy<F> = {
    describe,
    get: () => {
      if (compiled === undefined) {
        compiled = compile();
        pending.delete(entry);
      }
      return compiled;
    },
  };
  pending.add(entry);
  return entry;
}

function memo<F>(cache: Map<string, Lazy<F>>, schema: object, describe: string, compile: () => F): Lazy<F> {
  const text = JSON.stringify(schema);
  let entry = cache.get(text);
  if (entry === undefined) cache.set(text, (entry = lazy(describe, compile)));
  return entry;
}

function build(schemas: readonly object[]): SchemaCompilers {
  // Bodies are validated strictly (no coercion: "12" is not a number; unknown fields are errors,
  // not silently dropped); query strings and path parameters are coerced from text.
  const body = addFormats(new Ajv({ allErrors: true, removeAdditional: false, coerceTypes: false, useDefaults: true, strict: false }));
  const params = addFormats(new Ajv({ allErrors: true, removeAdditional: false, coerceTypes: 'array', useDefaults: true, strict: false }));
  for (const s of schemas) {
    body.addSchema(s);
    params.addSchema(s);
  }
  const byId: Record<string, unknown> = {};
  for (const s of schemas) byId[(s as { $id: string }).$id] = s;
  // Fastify's own serializer compiler, given the same shared schemas it would pass.
  const fastifySerializer = SerializerSelector()(byId, {});

  const bodies = new Map<string, Lazy<ValidateFunction>>();
  const others = new Map<string, Lazy<ValidateFunction>>();
  const serializers = new Map<string, Lazy<Serialize>>();
  return {
    validator: ({ schema, httpPart, method, url }) => {
      const where = `validating the ${httpPart ?? 'request'} of ${method} ${url}`;
      // Query strings, path parameters and headers: coerced in place, and Fastify reads the
      // findings of a failed call from the function's .errors, as from Ajv's own.
      if (httpPart !== 'body') {
        const v = memo(others, schema, where, () => params.compile(schema));
        const validate = Object.assign(
          (data: unknown) => {
            const f = v.get();
            const ok = f(data);
            validate.errors = f.errors;
            return ok;
          },
          { errors: null as ValidateFunction['errors'] },
        );
        return validate;
      }
      // A request without a body is validated as {}: operations like ready need none, and a
      // create with every field optional should not demand an empty object.
      const v = memo(bodies, schema, where, () => body.compile(schema));
      return (data: unknown) => {
        const validate = v.get();
        return validate(data ?? {}) ? { value: data } : { error: Object.assign(new Error('validation'), { validation: validate.errors }) };
      };
    },
    serializer: (route) => {
      const s = memo(serializers, route.schema, `serializing ${route.method} ${route.url} ${route.httpStatus ?? ''}`, () =>
        fastifySerializer({ ...route, httpStatus: route.httpStatus ?? '' }),
      );
      return (data: unknown) => s.get()(data);
    },
  };
}
