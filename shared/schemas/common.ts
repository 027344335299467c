import * as Type from '@sinclair/typebox';
import type { TSchema, Static, TUnsafe, SchemaOptions, TOptional, TProperties } from '@sinclair/typebox';
import { FREE_FORM_MAX_BYTES, FREE_FORM_MAX_DEPTH } from './storable.js';

/** A nullable scalar as one JSON Schema (`type: [T, "null"]`), so errors read cleanly. */
export function Nullable<T extends TSchema>(schema: T): TUnsafe<Static<T> | null> {
  const {
    type,
    enum: values,
    ...rest
  } = schema as unknown as { type?: string; enum?: unknown[] } & Record<string, unknown>;
  if (type === undefined) return Type.Unsafe<Static<T> | null>({ anyOf: [schema, { type: 'null' }] });
  const out: Record<string, unknown> = { ...rest, type: [type, 'null'] };
  if (values) out.enum = [...values, null];
  return Type.Unsafe<Static<T> | null>(out);
}

/** A string enum as `{type: string, enum: [...]}`. */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: SchemaOptions = {},
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ ...options, type: 'string', enum: [...values] });
}

/**
 * Object properties, picked, left out or made optional: what Type.Pick/Omit/Partial do to an
 * object's properties, without TypeBox's mapped-type machinery in every bundle (~8 KiB).
 */
export function pickProps<P extends TProperties, K extends keyof P>(props: P, keys: readonly K[]): Pick<P, K> {
  return Object.fromEntries(keys.map((k) => [k, props[k]])) as Pick<P, K>;
}
export function omitProps<P extends TProperties, K extends keyof P>(props: P, keys: readonly K[]): Omit<P, K> {
  return Object.fromEntries(
    Object.entries(props).filter(([k]) => !(keys as readonly PropertyKey[]).includes(k)),
  ) as Omit<P, K>;
}
export function optionalProps<P extends TProperties>(props: P): { [K in keyof P]: TOptional<P[K]> } {
  return Object.fromEntries(Object.entries(props).map(([k, v]) => [k, Type.Optional(v)])) as {
    [K in keyof P]: TOptional<P[K]>;
  };
}

export const Id = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[A-Za-z0-9_-]+$',
  description: 'an identifier (letters, digits, _ and -)',
});
export const Name = Type.String({ minLength: 1, maxLength: 200 });
export const DateTime = Type.String({ format: 'date-time' });
/**
 * A free key/value object (`metadata`, `context`, span data, …) that DynamoDB can still store: at
 * most 16 levels, no empty or `__proto__`/`constructor`/`prototype` key, finite numbers within
 * ±(2^53 − 1), at most 64 KB of JSON unless `maxBytes` says more (the `freeForm` keyword in ajv.ts).
 */
export function FreeForm(
  options: { maxBytes?: number; maxDepth?: number; maxProperties?: number } = {},
): TUnsafe<Record<string, unknown>> {
  const { maxBytes = FREE_FORM_MAX_BYTES, maxDepth = FREE_FORM_MAX_DEPTH, maxProperties } = options;
  return Type.Unsafe<Record<string, unknown>>({
    type: 'object',
    ...(maxProperties !== undefined ? { maxProperties } : {}),
    freeForm: { maxDepth, maxBytes },
  });
}

export const Metadata = FreeForm({ maxProperties: 100 });

export const IdParams = Type.Object({ id: Id }, { additionalProperties: false });
export type IdParams = Static<typeof IdParams>;

const StringList = Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 100 });
const IdList = Type.Array(Id, { maxItems: 100 });

export const MAX_LIMIT = 1000;
export const DEFAULT_LIMIT = 100;

/** Query parameters every list accepts. */
export const ListQueryBase = {
  ids: Type.Optional(IdList),
  names: Type.Optional(StringList),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  fromCreatedAt: Type.Optional(DateTime),
  toCreatedAt: Type.Optional(DateTime),
  sort: Type.Optional(
    Type.Array(Type.String({ pattern: '^[A-Za-z]+:(asc|desc)$', description: 'field:asc or field:desc' }), {
      maxItems: 5,
    }),
  ),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LIMIT })),
  offset: Type.Optional(Type.Integer({ minimum: 0 })),
};

export { StringList, IdList };

export const EmptyQuery = Type.Object({}, { additionalProperties: false });
