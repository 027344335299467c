import { describe, expect, it } from 'vitest';
import * as Type from '@sinclair/typebox';
import { compile, withStorageBounds } from '../../shared/schemas/ajv.js';
import { FreeForm, ListQueryBase, Metadata, Nullable } from '../../shared/schemas/common.js';
import { bodyProblem, freeFormProblem, numberProblem } from '../../shared/schemas/storable.js';
import { normaliseQuery } from '../../shared/http/query.js';
import { parseDateTime, toIsoDateTime } from '../../shared/domain/common/dates.js';
import { checkHeaders } from '../../shared/domain/catalog/endpoint-connection-rules.js';
import { httpHandler } from '../../shared/http/handler.js';
import { context, proxyEvent } from '../support/events.js';

const MAX = Number.MAX_SAFE_INTEGER;

function messageOf(fn: () => unknown): string {
  try {
    fn();
    return 'valid';
  } catch (e) {
    return (e as Error).message;
  }
}

/** `{a: {a: … 1}}` with `levels` objects. */
function nested(levels: number): Record<string, unknown> {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = { a: v };
  return v as Record<string, unknown>;
}

describe('free-form objects (the freeForm keyword)', () => {
  const validate = compile(
    Type.Object(
      {
        metadata: Type.Optional(Metadata),
        context: Type.Optional(Nullable(Type.Union([Type.String({ maxLength: 10 }), FreeForm({ maxBytes: 200 })]))),
      },
      { additionalProperties: false },
    ),
  );
  const message = (v: unknown) => messageOf(() => validate(v));

  it.each([
    [{ metadata: nested(16) }, 'valid'],
    [{ metadata: nested(17) }, `metadata${'.a'.repeat(16)} must not be nested deeper than 16 levels`],
    [{ metadata: { a: { b: [[[1]]] } } }, 'valid'],
    [{ metadata: { '': 1 } }, 'metadata has an empty key'],
    [{ metadata: { a: { '': 1 } } }, 'metadata.a has an empty key'],
    [{ metadata: JSON.parse('{"__proto__": {"x": 1}}') }, "metadata key '__proto__' is not allowed"],
    [{ metadata: { a: { constructor: 1 } } }, "metadata.a key 'constructor' is not allowed"],
    [{ metadata: { prototype: 1 } }, "metadata key 'prototype' is not allowed"],
    [{ metadata: { x: Infinity } }, `metadata.x must be a finite number within ±${MAX}`],
    [{ metadata: JSON.parse('{"x": [1, -1e309]}') }, `metadata.x[1] must be a finite number within ±${MAX}`],
    [{ metadata: { x: MAX + 1 } }, `metadata.x must be a finite number within ±${MAX}`],
    [{ metadata: { x: -MAX } }, 'valid'],
    [{ metadata: { x: 5e-324 } }, 'metadata.x must be 0 or at least 1e-130 in absolute value'],
    [{ metadata: { x: -0, y: 1e-130 } }, 'valid'],
    [{ metadata: { x: 'y'.repeat(65_536) } }, 'metadata must be at most 65536 bytes as JSON'],
    [{ metadata: { x: 'y'.repeat(65_000) } }, 'valid'],
    [{ metadata: [] }, 'metadata must be an object'],
    [{ context: { k: 'v'.repeat(300) } }, 'context must be at most 200 bytes as JSON'],
    [{ context: { '': 1 } }, 'context has an empty key'],
    [{ context: 'short' }, 'valid'],
    [{ context: null }, 'valid'],
    [{ context: 42 }, 'context must be a string or an object or null'],
  ])('%j → %s', (value, expected) => {
    expect(message(value)).toBe(expected);
  });

  it('names the field with its path and the rule (freeFormProblem)', () => {
    expect(freeFormProblem({ a: { b: nested(15) } })).toEqual({
      at: `.a.b${'.a'.repeat(14)}`,
      rule: 'must not be nested deeper than 16 levels',
    });
    expect(freeFormProblem({ 'odd "key"': { '': 1 } })).toEqual({ at: '.odd \\"key\\"', rule: 'has an empty key' });
    expect(freeFormProblem({ x: 1 }, { maxDepth: 1 })).toBeUndefined();
    expect(freeFormProblem({ x: {} }, { maxDepth: 1 })?.rule).toBe('must not be nested deeper than 1 levels');
  });
});

describe('numbers (bounds on every number and integer schema)', () => {
  const Body = Type.Object(
    {
      count: Type.Optional(Type.Integer({ minimum: 0 })),
      ratio: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 100 })),
      free: Type.Optional(Type.Number()),
      list: Type.Optional(Type.Array(Type.Integer())),
    },
    { additionalProperties: false },
  );
  const validate = compile(Body);

  it('adds ±(2^53 − 1) where a schema sets no bound, and keeps the ones it sets', () => {
    const bounded = withStorageBounds(Body) as unknown as { properties: Record<string, Record<string, unknown>> };
    expect(bounded.properties.count).toMatchObject({ minimum: 0, maximum: MAX });
    expect(bounded.properties.ratio).toMatchObject({ exclusiveMinimum: 0, maximum: 100 });
    expect(bounded.properties.ratio!.minimum).toBeUndefined();
    expect(bounded.properties.free).toMatchObject({ minimum: -MAX, maximum: MAX });
    expect((bounded.properties.list!.items as Record<string, unknown>).maximum).toBe(MAX);
    expect((Body.properties.count as Record<string, unknown>).maximum).toBeUndefined();
  });

  it.each([
    [{ count: 2 ** 53 }, `count must be at most ${MAX}`],
    [{ count: MAX }, 'valid'],
    [{ free: -(2 ** 53) }, `free must be at least -${MAX}`],
    [{ free: Infinity }, `free must be a finite number within ±${MAX}`],
    [{ free: NaN }, `free must be a finite number within ±${MAX}`],
    [{ list: [1, 2 ** 60] }, `list[1] must be at most ${MAX}`],
    [{ ratio: 0 }, 'ratio must be greater than 0'],
  ])('%j → %s', (value, expected) => {
    expect(messageOf(() => validate(value))).toBe(expected);
  });

  it('numberProblem: what DynamoDB cannot hold', () => {
    for (const bad of [Infinity, -Infinity, NaN, 2 ** 53, -(2 ** 53), 1e300])
      expect(numberProblem(bad)).toBe(`must be a finite number within ±${MAX}`);
    for (const tiny of [5e-324, -1e-131])
      expect(numberProblem(tiny)).toBe('must be 0 or at least 1e-130 in absolute value');
    for (const ok of [0, -0, 1, -1, 0.5, 1e-130, MAX, -MAX]) expect(numberProblem(ok)).toBeUndefined();
  });
});

describe('query numbers', () => {
  const Query = Type.Object(
    {
      ...ListQueryBase,
      days: Type.Optional(Type.Integer({ minimum: 1, maximum: 90 })),
      ids: Type.Optional(Type.Array(Type.String())),
    },
    { additionalProperties: false },
  );
  const validate = compile(Query, 'query');
  const run = (q: Record<string, string[]>) =>
    messageOf(() =>
      validate(normaliseQuery({ queryStringParameters: null, multiValueQueryStringParameters: q }, Query)),
    );

  it.each([
    [{ limit: ['-Infinity'] }, 'limit must be an integer'],
    [{ limit: ['Infinity'] }, 'limit must be an integer'],
    [{ offset: ['1e309'] }, `offset must be a finite number within ±${MAX}`],
    [{ days: ['Infinity'] }, 'days must be an integer'],
    [{ days: ['NaN'] }, 'days must be an integer'],
    [{ days: [''] }, 'days must be an integer'],
    [{ days: [' '] }, 'days must be an integer'],
    [{ days: ['0x10'] }, 'days must be an integer'],
    [{ days: ['1,5'] }, 'days must be an integer'],
    [{ offset: ['9007199254740993'] }, `offset must be a finite number within ±${MAX}`],
    [{ offset: ['9007199254740991'] }, 'valid'],
    [{ days: ['1.5'] }, 'days must be an integer'],
    [{ days: ['91'] }, 'days must be at most 90'],
    [{ days: ['7'] }, 'valid'],
    [{ days: ['7', '8'] }, "query parameter 'days' must be given once"],
    [{ limit: ['-5'] }, 'limit must be at least 1'],
  ])('%j → %s', (query, expected) => {
    expect(run(query)).toBe(expected);
  });

  it('keeps a prototype-named parameter as an own key, so it is refused as unknown', () => {
    const raw = normaliseQuery(
      {
        queryStringParameters: null,
        multiValueQueryStringParameters: JSON.parse('{"__proto__": ["x"], "constructor": ["y"]}'),
      },
      Query,
    );
    expect(Object.keys(raw)).toEqual(['__proto__', 'constructor']);
    expect(Object.getPrototypeOf(raw)).toBe(Object.prototype);
    expect(messageOf(() => validate(raw))).toBe("unknown query parameter '__proto__'");
  });
});

describe('date-times', () => {
  it.each([
    ['2026-06-30T23:59:60Z', '2026-06-30T23:59:59.999Z'],
    ['2026-06-30T23:59:60.5Z', '2026-06-30T23:59:59.999Z'],
    ['2026-07-01T00:59:60+01:00', '2026-06-30T23:59:59.999Z'],
    ['2026-06-30T18:59:60-05:00', '2026-06-30T23:59:59.999Z'],
    ['2026-01-01T00:00:00Z', '2026-01-01T00:00:00.000Z'],
    ['2026-01-01t00:00:00z', '2026-01-01T00:00:00.000Z'],
    ['2026-01-01 00:00:00Z', '2026-01-01T00:00:00.000Z'],
    ['2026-01-01T01:00:00+01', '2026-01-01T00:00:00.000Z'],
    ['2026-01-01T01:30:00+0130', '2026-01-01T00:00:00.000Z'],
    ['2026-01-01T00:00:00.123456789Z', '2026-01-01T00:00:00.123Z'],
    ['2026-01-01T00:00:00.1Z', '2026-01-01T00:00:00.100Z'],
    ['0050-03-01T00:00:00Z', '0050-03-01T00:00:00.000Z'],
    ['2024-02-29T12:00:00-00:00', '2024-02-29T12:00:00.000Z'],
  ])('%s → %s', (value, iso) => {
    expect(toIsoDateTime(value)).toBe(iso);
    expect(parseDateTime(value)).toBe(Date.parse(iso));
  });

  it('every form the date-time format accepts parses', () => {
    const validate = compile(Type.Object({ at: Type.String({ format: 'date-time' }) }));
    for (const at of [
      '2026-06-30T23:59:60Z',
      '2026-01-01T00:00:00+01',
      '1999-12-31 23:59:59.9999z',
      '2026-07-01T00:59:60+01:00',
    ]) {
      expect(messageOf(() => validate({ at }))).toBe('valid');
      expect(Number.isFinite(parseDateTime(at))).toBe(true);
    }
  });

  it('refuses what is not a date-time, naming the field', () => {
    expect(messageOf(() => parseDateTime('yesterday', 'fromCreatedAt'))).toBe(
      'fromCreatedAt must be a valid date-time',
    );
    expect(messageOf(() => parseDateTime('2026-01-01T00:00:00', 'startTime'))).toBe(
      'startTime must be a valid date-time',
    );
  });
});

describe('endpoint-connection headers', () => {
  it.each([
    [{ 'X-Api-Version': '2', Accept: 'application/json' }, 'valid'],
    [{ "!#$%&'*+-.^_`|~": 'x' }, 'valid'],
    [
      { 'X-H\r\nInjected: 1': 'v' },
      `headers: "X-H\\r\\nInjected: 1" is not a valid header name (an RFC 9110 token: letters, digits and !#$%&'*+-.^_\`|~)`,
    ],
    [
      { 'X H': 'v' },
      `headers: "X H" is not a valid header name (an RFC 9110 token: letters, digits and !#$%&'*+-.^_\`|~)`,
    ],
    [
      { 'X:H': 'v' },
      `headers: "X:H" is not a valid header name (an RFC 9110 token: letters, digits and !#$%&'*+-.^_\`|~)`,
    ],
    [
      { 'X-É': 'v' },
      `headers: "X-É" is not a valid header name (an RFC 9110 token: letters, digits and !#$%&'*+-.^_\`|~)`,
    ],
    [{ ['x'.repeat(257)]: 'v' }, 'headers: a header name must have at most 256 characters'],
    [{ Host: 'evil.example.com' }, 'headers.Host is not allowed (it is set by the HTTP client)'],
    [{ 'content-length': '5' }, 'headers.content-length is not allowed (it is set by the HTTP client)'],
    [{ 'TRANSFER-ENCODING': 'chunked' }, 'headers.TRANSFER-ENCODING is not allowed (it is set by the HTTP client)'],
    [{ Connection: 'close' }, 'headers.Connection is not allowed (it is set by the HTTP client)'],
    [{ 'X-A': 'a\r\nInjected: 1' }, 'headers.X-A must not contain CR, LF or NUL characters'],
    [{ 'X-A': 'a\nb' }, 'headers.X-A must not contain CR, LF or NUL characters'],
    [{ 'X-A': 'a\0b' }, 'headers.X-A must not contain CR, LF or NUL characters'],
    [{ 'X-A': 'tab\tand ümlaut' }, 'valid'],
  ])('%j → %s', (headers, expected) => {
    expect(messageOf(() => checkHeaders(headers))).toBe(expected);
  });
});

describe('the body guard (before schema validation)', () => {
  it('refuses bodies deeper than 32 levels, unstorable numbers and unpaired surrogates, naming the place', () => {
    expect(bodyProblem(nested(32))).toBeUndefined();
    expect(bodyProblem(nested(33))).toEqual({ at: '.a'.repeat(32), rule: 'must not be nested deeper than 32 levels' });
    expect(bodyProblem({ usage: { inputTokens: 2 ** 53 } })).toEqual({
      at: '.usage.inputTokens',
      rule: `must be a finite number within ±${MAX}`,
    });
    expect(bodyProblem({ name: 'a\ud800' })).toEqual({
      at: '.name',
      rule: 'must be valid Unicode (it has an unpaired surrogate)',
    });
    expect(bodyProblem({ name: 'emoji 😀 ok' })).toBeUndefined();
    expect(bodyProblem({ m: { '\udc00': 1 } })?.rule).toBe(
      'has a key that is not valid Unicode (it has an unpaired surrogate)',
    );
  });

  const Body = Type.Object(
    { metadata: Type.Optional(Metadata), name: Type.Optional(Type.String()) },
    { additionalProperties: false },
  );
  const handler = httpHandler({ handler: 'api-keys/create', body: Body }, async () => ({ statusCode: 201, body: {} }));
  const post = async (raw: string) => {
    const res = await handler(
      proxyEvent({ httpMethod: 'POST', body: raw, headers: { 'Content-Type': 'application/json' } }),
      context(),
    );
    return { status: res.statusCode, body: JSON.parse(res.body) as { error: string; message: string } };
  };

  it('answers 400 with {error, message} through the Middy stack', async () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    expect(await post(deep)).toEqual({
      status: 400,
      body: { error: 'Bad Request', message: `${'[0]'.repeat(32)} must not be nested deeper than 32 levels` },
    });
    expect(await post('{"metadata": {"x": 1e309}}')).toEqual({
      status: 400,
      body: { error: 'Bad Request', message: `metadata.x must be a finite number within ±${MAX}` },
    });
    expect(await post('{"name": "\\ud800"}')).toEqual({
      status: 400,
      body: { error: 'Bad Request', message: 'name must be valid Unicode (it has an unpaired surrogate)' },
    });
    expect(await post('{"metadata": {"__proto__": {"polluted": true}}}')).toEqual({
      status: 400,
      body: { error: 'Bad Request', message: "metadata key '__proto__' is not allowed" },
    });
    expect(await post('{"__proto__": {"polluted": true}}')).toEqual({
      status: 400,
      body: { error: 'Bad Request', message: "unknown field '__proto__'" },
    });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((await post(`{"metadata": ${JSON.stringify(nested(16))}}`)).status).toBe(201);
  });
});
