// What several operations of the finished document write out alike is stated once in components
// and referred to, as the problem answers, parameters and examples are (openapi-answers.ts): the
// route schemas that validate requests declare each at its route, the document says it once.
// Issue 36 item 14 holds the document to 250 KB (docs/decisions/0096-openapi-size.md).
/** The document is plain JSON, walked and completed here and in openapi-answers.ts. */
// biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document is untyped JSON walked by key; `unknown` would need a cast at every step and where @fastify/swagger takes it
export type Json = Record<string, any>;

const pascal = (words: string) => words.replace(/(?:^|[-_\s])([a-z])/gi, (_, c: string) => c.toUpperCase());

/** A name not yet taken in `shared`: `base`, else `base2`, `base3`… */
function freeName(shared: Json, base: string): string {
  let name = base;
  for (let i = 2; name in shared; i++) name = `${base}${i}`;
  return name;
}

/**
 * A success answer several operations give alike (the same description, content and headers) goes
 * to components/responses, named after the schema it answers with (`WebhookDelivery202`), else
 * after the first operation that gives it.
 */
export function shareSuccessAnswers(operations: Json[], shared: Json): void {
  const count = new Map<string, number>();
  for (const op of operations)
    for (const answer of Object.values(op.responses as Record<string, Json>))
      if (answer.$ref === undefined) count.set(JSON.stringify(answer), (count.get(JSON.stringify(answer)) ?? 0) + 1);
  const names = new Map<string, string>();
  for (const op of operations) {
    for (const [status, answer] of Object.entries(op.responses as Record<string, Json>)) {
      const text = JSON.stringify(answer);
      if (answer.$ref !== undefined || (count.get(text) ?? 0) < 2) continue;
      let name = names.get(text);
      if (name === undefined) {
        const schemaRef = (Object.values((answer.content ?? {}) as Record<string, Json>)[0]?.schema?.$ref ?? '') as string;
        name = freeName(shared, schemaRef === '' ? `${pascal(op.operationId)}${status}` : `${schemaRef.split('/').pop()}${status}`);
        shared[name] = answer;
        names.set(text, name);
      }
      op.responses[status] = { $ref: `#/components/responses/${name}` };
    }
  }
}

/**
 * A request body several operations take alike (the empty one of ready, collect, cancel…) goes to
 * components/requestBodies: `Empty` for one without fields, else after the first operation.
 */
export function shareRequestBodies(operations: Json[], shared: Json): void {
  const count = new Map<string, number>();
  for (const op of operations)
    if (op.requestBody?.content !== undefined)
      count.set(JSON.stringify(op.requestBody), (count.get(JSON.stringify(op.requestBody)) ?? 0) + 1);
  const names = new Map<string, string>();
  for (const op of operations) {
    if (op.requestBody?.content === undefined) continue;
    const text = JSON.stringify(op.requestBody);
    if ((count.get(text) ?? 0) < 2) continue;
    let name = names.get(text);
    if (name === undefined) {
      const schema = (Object.values(op.requestBody.content as Record<string, Json>)[0]?.schema ?? {}) as Json;
      name = freeName(shared, Object.keys(schema.properties ?? {}).length === 0 ? 'Empty' : `${pascal(op.operationId)}Body`);
      shared[name] = op.requestBody;
      names.set(text, name);
    }
    op.requestBody = { $ref: `#/components/requestBodies/${name}` };
  }
}

/** Smaller than this, a `$ref` (about 40 bytes) and a name would save little or nothing. */
const MIN_SHARED_SCHEMA = 100;

/**
 * A field's schema written out alike in two places or more (`has_more` of every list, a webhook
 * endpoint's `enabled_events` in its create and update) becomes a named schema, named after the
 * field (`HasMore`, `EnabledEvents`), and each place refers to it. Only fields are looked at, in
 * request bodies, answers and named schemas: a named schema of its own keeps its name.
 */
export function shareFieldSchemas(doc: Json): void {
  // One at a time, the largest first, so that a field inside a shared one is looked at in its
  // named schema only.
  for (;;) {
    const byText = new Map<string, Array<{ owner: Json; key: string }>>();
    for (const f of fieldsOf(doc)) {
      const text = JSON.stringify(f.owner[f.key]);
      // An event's `data` is what tells its type apart: it stays in the event's schema.
      if (text.length >= MIN_SHARED_SCHEMA && f.owner[f.key].$ref === undefined && f.key !== 'data')
        byText.set(text, [...(byText.get(text) ?? []), f]);
    }
    const repeated = [...byText].filter(([, places]) => places.length > 1).sort(([a], [b]) => b.length - a.length)[0];
    if (repeated === undefined) return;
    const [text, places] = repeated;
    const schemas = doc.components.schemas as Json;
    const name = freeName(schemas, pascal(places[0]!.key));
    schemas[name] = JSON.parse(text);
    for (const p of places) p.owner[p.key] = { $ref: `#/components/schemas/${name}` };
  }
}

/** Every field of the document's schemas: where it is (`owner[key]`). */
function fieldsOf(doc: Json): Array<{ owner: Json; key: string }> {
  const roots: Json[] = [...Object.values(doc.components.schemas as Json)];
  for (const item of Object.values(doc.paths as Record<string, Record<string, Json>>))
    for (const op of Object.values(item)) {
      for (const media of Object.values((op.requestBody?.content ?? {}) as Record<string, Json>)) roots.push(media.schema);
      for (const answer of Object.values(op.responses as Record<string, Json>))
        for (const media of Object.values((answer.content ?? {}) as Record<string, Json>)) roots.push(media.schema);
    }
  const fields: Array<{ owner: Json; key: string }> = [];
  const walk = (schema: Json | undefined): void => {
    if (schema === undefined || schema === null || typeof schema !== 'object') return;
    for (const [key, field] of Object.entries((schema.properties ?? {}) as Record<string, Json>)) {
      fields.push({ owner: schema.properties, key });
      walk(field);
    }
    for (const part of ['items', 'additionalProperties'] as const) if (typeof schema[part] === 'object') walk(schema[part]);
    for (const union of ['allOf', 'anyOf', 'oneOf'] as const) for (const s of (schema[union] ?? []) as Json[]) walk(s);
  };
  for (const root of roots) walk(root);
  return fields;
}
