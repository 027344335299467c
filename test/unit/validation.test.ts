import { describe, expect, it } from 'vitest';
import * as Type from '@sinclair/typebox';
import { compile } from '../../shared/schemas/ajv.js';
import { Nullable, StringEnum, ListQueryBase } from '../../shared/schemas/common.js';
import { normaliseQuery } from '../../shared/http/query.js';
import { E164 } from '../../shared/schemas/phone-connections.js';

const Body = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 5 }),
    timeout: Type.Optional(Type.Integer({ minimum: 1, maximum: 120 })),
    kind: Type.Optional(StringEnum(['A', 'B'] as const)),
    cap: Type.Optional(Nullable(Type.Integer({ minimum: 1 }))),
    phone: Type.Optional(E164),
    nested: Type.Optional(Type.Object({ x: Type.Integer() }, { additionalProperties: false })),
  },
  { additionalProperties: false },
);
const validate = compile(Body);
const message = (v: unknown) => {
  try {
    validate(v);
    return 'valid';
  } catch (e) {
    return (e as Error).message;
  }
};

describe('body validation messages name the field and the rule', () => {
  it.each([
    [{}, 'name is required'],
    [{ name: 'a', extra: 1 }, "unknown field 'extra'"],
    [{ name: 'a', nested: { x: 1, y: 2 } }, "unknown field 'nested.y'"],
    [{ name: 3 }, 'name must be a string'],
    [{ name: '' }, 'name must not be empty'],
    [{ name: 'abcdef' }, 'name must have at most 5 characters'],
    [{ name: 'a', timeout: 0 }, 'timeout must be at least 1'],
    [{ name: 'a', timeout: 121 }, 'timeout must be at most 120'],
    [{ name: 'a', timeout: 1.5 }, 'timeout must be an integer'],
    [{ name: 'a', kind: 'C' }, 'kind must be one of: A, B'],
    [{ name: 'a', cap: 'x' }, 'cap must be an integer or null'],
    [{ name: 'a', phone: '555-1234' }, 'phone must be an E.164 phone number such as +14155550123'],
    [{ name: 'a', nested: { x: 'q' } }, 'nested.x must be an integer'],
  ])('%j → %s', (value, expected) => {
    expect(message(value)).toBe(expected);
  });

  it('accepts null for nullable fields', () => {
    expect(message({ name: 'a', cap: null })).toBe('valid');
  });
});

describe('query normalisation', () => {
  const Query = Type.Object({ ...ListQueryBase, flag: Type.Optional(Type.Boolean()) }, { additionalProperties: false });
  const validateQuery = compile(Query, 'query');

  it('accepts repeated keys and comma-separated values for arrays, and coerces scalars', () => {
    const raw = normaliseQuery(
      {
        queryStringParameters: null,
        multiValueQueryStringParameters: { ids: ['a,b', 'c'], limit: ['5'], flag: ['true'] },
      },
      Query,
    );
    expect(validateQuery(raw)).toEqual({ ids: ['a', 'b', 'c'], limit: 5, flag: true });
  });

  it('rejects a scalar given twice, an unknown parameter and bad values', () => {
    expect(() =>
      normaliseQuery({ queryStringParameters: null, multiValueQueryStringParameters: { limit: ['1', '2'] } }, Query),
    ).toThrow("query parameter 'limit' must be given once");
    expect(() => validateQuery({ bogus: 'x' })).toThrow("unknown query parameter 'bogus'");
    expect(() => validateQuery({ limit: '1.5' })).toThrow('limit must be an integer');
    expect(() => validateQuery({ limit: '0' })).toThrow('limit must be at least 1');
    expect(() => validateQuery({ limit: '1001' })).toThrow('limit must be at most 1000');
    expect(() => validateQuery({ fromCreatedAt: 'yesterday' })).toThrow('fromCreatedAt must be a valid date-time');
    expect(() => validateQuery({ sort: ['name'] })).toThrow('sort[0] must be field:asc or field:desc');
  });
});
