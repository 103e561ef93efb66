// What an API reference shows as the example of a schema, built the way renderers build it:
// from `examples`, `const` and `enum`, field by field. Where a string or a map has none, a
// renderer invents one (random letters where an id goes, `additionalProp1`): those are reported.
type Schema = Record<string, any>;
export type Doc = { components: { schemas: Record<string, Schema> } } & Record<string, any>;

const REF = '#/components/schemas/';

export function exampleOf(doc: Doc, schema: Schema, where: string, missing: string[], depth = 0): unknown {
  if (depth > 12) return null;
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.startsWith(REF) ? schema.$ref.slice(REF.length) : schema.$ref;
    const target = doc.components.schemas[name];
    if (target === undefined) {
      missing.push(`${where}: $ref ${schema.$ref} does not resolve`);
      return null;
    }
    return exampleOf(doc, target, where, missing, depth + 1);
  }
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if ('example' in schema) return schema.example;
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  for (const union of ['oneOf', 'anyOf'] as const) {
    if (Array.isArray(schema[union])) {
      const first = (schema[union] as Schema[]).find((s) => s.type !== 'null') ?? schema[union][0];
      return exampleOf(doc, first, where, missing, depth + 1);
    }
  }
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type;
  switch (type) {
    case 'object': {
      // An object built on others (`allOf`, as each event on EventEnvelope) has their fields too.
      const out: Record<string, unknown> = {};
      for (const part of (schema.allOf ?? []) as Schema[]) Object.assign(out, exampleOf(doc, part, where, missing, depth + 1));
      for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
        out[name] = exampleOf(doc, property, `${where}.${name}`, missing, depth + 1);
      }
      if (typeof schema.additionalProperties === 'object' && Object.keys(out).length === 0)
        missing.push(`${where}: a map without an example`);
      return out;
    }
    case 'array':
      return schema.items === undefined ? [] : [exampleOf(doc, schema.items, `${where}[]`, missing, depth + 1)];
    case 'string':
      missing.push(`${where}: a string without an example`);
      return 'string';
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return true;
    default:
      return null;
  }
}
