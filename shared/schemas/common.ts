import { Type, type TSchema, type Static, type TUnsafe, type SchemaOptions } from '@sinclair/typebox';

/** A nullable scalar as one JSON Schema (`type: [T, "null"]`), so errors read cleanly. */
export function Nullable<T extends TSchema>(schema: T): TUnsafe<Static<T> | null> {
  const { type, enum: values, ...rest } = schema as unknown as { type?: string; enum?: unknown[] } & Record<string, unknown>;
  if (type === undefined) return Type.Unsafe<Static<T> | null>({ anyOf: [schema, { type: 'null' }] });
  const out: Record<string, unknown> = { ...rest, type: [type, 'null'] };
  if (values) out.enum = [...values, null];
  return Type.Unsafe<Static<T> | null>(out);
}

/** A string enum as `{type: string, enum: [...]}`. */
export function StringEnum<const T extends readonly string[]>(values: T, options: SchemaOptions = {}): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ ...options, type: 'string', enum: [...values] });
}

export const Id = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$', description: 'an identifier (letters, digits, _ and -)' });
export const Name = Type.String({ minLength: 1, maxLength: 200 });
export const DateTime = Type.String({ format: 'date-time' });
/** Free-form: at most 64 KB as JSON (DESIGN.md §9), so it never decides whether an item fits. */
export const Metadata = Type.Record(Type.String(), Type.Unknown(), { maxProperties: 100, maxBytes: 64 * 1024 });

export const IdParams = Type.Object({ id: Id }, { additionalProperties: false });
export type IdParams = Static<typeof IdParams>;

const StringList = Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 100 });
const IdList = Type.Array(Id, { maxItems: 100 });

export const MAX_LIMIT = 1000;
export const DEFAULT_LIMIT = 100;

/** Query parameters every list accepts (DESIGN.md §3). */
export const ListQueryBase = {
  ids: Type.Optional(IdList),
  names: Type.Optional(StringList),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  fromCreatedAt: Type.Optional(DateTime),
  toCreatedAt: Type.Optional(DateTime),
  sort: Type.Optional(
    Type.Array(Type.String({ pattern: '^[A-Za-z]+:(asc|desc)$', description: 'field:asc or field:desc' }), { maxItems: 5 }),
  ),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LIMIT })),
  offset: Type.Optional(Type.Integer({ minimum: 0 })),
};

export { StringList, IdList };

export const EmptyQuery = Type.Object({}, { additionalProperties: false });
