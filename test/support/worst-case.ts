/**
 * The largest a value valid under a JSON Schema can be once stored, in bytes (UTF-8 of its JSON,
 * which is at or above DynamoDB's own count). A character is 4 bytes (any script) unless a
 * `pattern` or `format` keeps it ASCII (the patterns of this code base are ASCII classes);
 * `maxBytes` caps whatever it is on. Unbounded shapes give Infinity.
 */
type Schema = Record<string, unknown>;

const NUMBER_BYTES = 22;

export function worstCaseBytes(schema: Schema): number {
  const freeFormBytes = (schema.freeForm as { maxBytes?: number } | undefined)?.maxBytes;
  const limit = typeof schema.maxBytes === 'number' ? schema.maxBytes : freeFormBytes;
  const bounded = (n: number) =>
    typeof limit === 'number' ? Math.min(n, limit + (schema.type === 'string' ? 2 : 0)) : n;
  if (Array.isArray(schema.anyOf) || Array.isArray(schema.oneOf)) {
    const branches = (schema.anyOf ?? schema.oneOf) as Schema[];
    return bounded(Math.max(...branches.map(worstCaseBytes)));
  }
  if (Array.isArray(schema.enum))
    return Math.max(...(schema.enum as unknown[]).map((v) => Buffer.byteLength(JSON.stringify(v))));
  const types = (Array.isArray(schema.type) ? schema.type : [schema.type]).filter((t) => t !== 'null') as (
    | string
    | undefined
  )[];
  if (types.length === 0) return 4; // null only
  if (types.length > 1) return bounded(Math.max(...types.map((t) => worstCaseBytes({ ...schema, type: t }))));
  switch (types[0]) {
    case 'string': {
      if (typeof schema.maxLength !== 'number') return bounded(Infinity);
      const perChar = schema.pattern || schema.format ? 1 : 4;
      return bounded(schema.maxLength * perChar + 2);
    }
    case 'number':
    case 'integer':
      return NUMBER_BYTES;
    case 'boolean':
      return 5;
    case 'array': {
      if (typeof schema.maxItems !== 'number') return bounded(Infinity);
      return bounded(2 + schema.maxItems * (worstCaseBytes((schema.items ?? {}) as Schema) + 1));
    }
    case 'object': {
      const props = (schema.properties ?? {}) as Record<string, Schema>;
      let total = 2;
      for (const [name, s] of Object.entries(props)) total += Buffer.byteLength(name) + 4 + worstCaseBytes(s);
      const open =
        schema.patternProperties ??
        (schema.additionalProperties === false ? undefined : (schema.additionalProperties ?? true));
      if (open) {
        if (typeof schema.maxProperties !== 'number') return bounded(Infinity);
        const value =
          open === true ? Infinity : Math.max(...Object.values(open as Record<string, Schema>).map(worstCaseBytes));
        const key = worstCaseBytes({ type: 'string', ...((schema.propertyNames ?? {}) as Schema) });
        total += schema.maxProperties * (key + value + 2);
      }
      return bounded(total);
    }
    default:
      return bounded(Infinity); // {}: anything
  }
}

/** The schema of a record as a PATCH may leave it: each field at the larger of its create and update forms. */
export function mergedSchema(create: Schema, update: Schema, ignore: string[] = []): Schema {
  const props = { ...((create.properties ?? {}) as Record<string, Schema>) };
  for (const [name, s] of Object.entries((update.properties ?? {}) as Record<string, Schema>)) {
    if (ignore.includes(name)) continue;
    const current = props[name];
    props[name] = current && worstCaseBytes(current) >= worstCaseBytes(s) ? current : s;
  }
  return { type: 'object', properties: props, additionalProperties: false };
}
