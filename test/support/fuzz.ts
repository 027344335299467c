/**
 * The request fuzzer: requests generated from the route table and the schemas each handler
 * declares (`handler.contract`), sent in process through the local gateway (`dispatch`), checked
 * against one property: never a 5xx, always a JSON body, `{error, message}` (both strings) on an
 * error, and no stack trace or internal name in an error.
 *
 * Requests are generated independently per index from `seed + index` (fast-check), so a finding is
 * reproduced with `FUZZ_SEED=<seed + index> FUZZ_RUNS=1 npm run fuzz`. Generated requests refer to
 * real records through placeholders (`@ref:product`), filled in from a pool of records the fuzzer
 * creates (and re-creates every `refreshEvery` (50) requests, since the fuzzer also deletes them).
 */
import fc from 'fast-check';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import type { TSchema } from '@sinclair/typebox';
import { routes, type Route } from '../../shared/routes.js';
import { dispatch, PROJECT_ROOT, type GatewayResponse } from '../../infra/local/gateway.js';
import type { Contract } from '../../shared/http/handler.js';

type Json = unknown;
type Schema = Record<string, unknown>;

export interface FuzzOptions {
  /** Longest generated string (the quick run keeps items small; large texts are another concern). */
  maxString: number;
}

/** One generated request, before placeholders are filled in. */
export interface FuzzRequest {
  handler: string;
  method: string;
  path: string;
  query: [string, string][];
  headers: Record<string, string>;
  body?: string;
  admin: boolean;
}

export interface Finding {
  index: number;
  seed: number;
  reason: string;
  request: { method: string; path: string; query: [string, string][]; headers: Record<string, string>; body?: string };
  status: number;
  response: string;
}

// ---------------------------------------------------------------------------------------------
// Contracts

export interface RouteContract {
  route: Route;
  params?: Schema;
  query: Schema;
  body?: Schema;
}

/** Every route with the schemas its handler validates with (as infra/openapi.ts collects them). */
export async function loadContracts(): Promise<RouteContract[]> {
  const out: RouteContract[] = [];
  for (const route of routes) {
    const mod = (await import(pathToFileURL(resolve(PROJECT_ROOT, 'functions', `${route.handler}.ts`)).href)) as {
      handler: { contract?: Contract };
    };
    const contract = mod.handler.contract;
    if (!contract) throw new Error(`functions/${route.handler}.ts does not use httpHandler`);
    const plain = (s: TSchema | undefined) => (s ? (JSON.parse(JSON.stringify(s)) as Schema) : undefined);
    out.push({ route, params: plain(contract.params), query: plain(contract.query)!, body: plain(contract.body) });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// References: which record a field or a path id names

export const REF_KINDS = [
  'product',
  'version',
  'endpointConnection',
  'phoneConnection',
  'metric',
  'metricGroup',
  'specification',
  'test',
  'testCase',
  'session',
  'turn',
  'span',
  'evaluation',
  'monitor',
  'apiKey',
  'organization',
  'model',
] as const;
export type RefKind = (typeof REF_KINDS)[number];

const FIELD_REFS: [RegExp, RefKind][] = [
  [/^productIds?$/, 'product'],
  [/^versionIds?$/, 'version'],
  [/EndpointConnectionId$/, 'endpointConnection'],
  [/^sessionIds?$/, 'session'],
  [/^inferenceResultIds?$/, 'turn'],
  [/^testIds?$|^sourceTestId$/, 'test'],
  [/^testCaseIds?$/, 'testCase'],
  [/^(metricIds?|parentMetricId)$/, 'metric'],
  [/^metricGroupIds$/, 'metricGroup'],
  [/^specificationIds?$/, 'specification'],
  [/^parentTraceId$/, 'span'],
  [/^organizationIds$/, 'organization'],
];

const PATH_REFS: [RegExp, RefKind][] = [
  [/^\/products\//, 'product'],
  [/^\/versions\//, 'version'],
  [/^\/endpointConnections\//, 'endpointConnection'],
  [/^\/phoneConnections\//, 'phoneConnection'],
  [/^\/metrics\//, 'metric'],
  [/^\/models\//, 'model'],
  [/^\/specifications\//, 'specification'],
  [/^\/tests\//, 'test'],
  [/^\/testCases\//, 'testCase'],
  [/^\/sessions\//, 'session'],
  [/^\/inferenceResults\//, 'turn'],
  [/^\/traces\//, 'span'],
  [/^\/evaluations\//, 'evaluation'],
  [/^\/monitors\//, 'monitor'],
  [/^\/apiKeys\//, 'apiKey'],
  [/^\/organizations\//, 'organization'],
];

const refOfField = (name: string): RefKind | undefined => FIELD_REFS.find(([re]) => re.test(name))?.[1];
const ref = (kind: RefKind) => `@ref:${kind}`;

// ---------------------------------------------------------------------------------------------
// Hostile values

/** Numbers JSON.stringify cannot write: placed in the text as `"@raw:<token>"` and unquoted. */
const RAW_NUMBERS = [
  '1e309',
  '-1e309',
  '1e400',
  '5e-324',
  '-5e-324',
  '1e-131',
  '9007199254740992',
  '9007199254740993',
  '-9007199254740993',
  '-0',
  '0.0',
  '1E2',
  '123456789012345678901234567890',
  '1e-7',
];
const BOUNDARY_NUMBERS = [
  0,
  -1,
  1,
  -0.5,
  0.5,
  2 ** 31,
  -(2 ** 31),
  2 ** 32,
  Number.MAX_SAFE_INTEGER,
  -Number.MAX_SAFE_INTEGER,
  1e-130,
  1e125,
  1.5,
  100,
  101,
  1000,
  1001,
  599,
  600,
];
const QUERY_NUMBERS = [
  'Infinity',
  '-Infinity',
  '+Infinity',
  '1e309',
  '-1e309',
  'NaN',
  '',
  ' ',
  '0x10',
  '1e2',
  '-0',
  '1.5',
  '9007199254740993',
  '00012',
  '١٢',
  '1_000',
  '+5',
  '.5',
  '5.',
  '1e-400',
];
const EVIL_STRINGS = [
  '',
  ' ',
  '\ud800',
  'a\udfffb',
  '\u0000',
  'line\r\nInjected: 1',
  '__proto__',
  'constructor',
  '😀'.repeat(3),
  'e\u0301',
  '%E0%A4%A',
  '../../etc/passwd',
  '{{ 7*7 }}',
  '$.a[?(@.b)]',
  '\\',
  '"',
  '<script>',
  'Ω≈ç√',
  '\ufeff',
  '\u202e',
  '2026-06-30T23:59:60Z',
  '2026-13-01T00:00:00Z',
  'null',
  'true',
  '0',
];
const DATES = [
  '2026-06-30T23:59:60Z',
  '2026-07-01T00:59:60+01:00',
  '2026-01-01T00:00:00Z',
  '2026-01-01t00:00:00z',
  '2026-01-01 00:00:00+01',
  '2026-01-01T00:00:00.123456789-05:30',
  '0001-01-01T00:00:00Z',
  '9999-12-31T23:59:59-23:59',
  '2024-02-29T12:00:00Z',
];
const EVIL_KEYS = [
  '',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '\ud800',
  'a.b',
  'a'.repeat(300),
  'id',
  'organizationId',
  'createdAt',
  'deletedAt',
];

const rawNumber = fc.constantFrom(...RAW_NUMBERS).map((n) => `@raw:${n}`);

function deepValue(levels: number, asArray: boolean): Json {
  let v: Json = 1;
  for (let i = 0; i < levels; i++) v = asArray ? [v] : { a: v };
  return v;
}

function strings(maxString: number, minLength = 0, maxLength = Infinity): fc.Arbitrary<string> {
  const max = Math.max(minLength, Math.min(maxLength, maxString));
  return fc.oneof(
    { weight: 6, arbitrary: fc.string({ minLength, maxLength: Math.min(max, 40) }) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', minLength, maxLength: Math.min(max, 40) }) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength, maxLength: max }) },
    { weight: 1, arbitrary: fc.constantFrom(...EVIL_STRINGS) },
    { weight: 1, arbitrary: fc.integer({ min: 0, max: Math.min(maxString, 100_000) }).map((n) => 'x'.repeat(n)) },
  );
}

/** Any JSON-ish value, including hostile keys and numbers, up to `depth` levels. */
function anyValue(o: FuzzOptions, depth: number): fc.Arbitrary<Json> {
  const leaf = fc.oneof(
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.constantFrom(...BOUNDARY_NUMBERS),
    rawNumber,
    strings(o.maxString),
  );
  if (depth <= 0) return leaf;
  const key = fc.oneof(
    { weight: 8, arbitrary: fc.string({ maxLength: 12 }) },
    { weight: 1, arbitrary: fc.constantFrom(...EVIL_KEYS) },
  );
  return fc.oneof(
    { weight: 4, arbitrary: leaf },
    { weight: 1, arbitrary: fc.array(anyValue(o, depth - 1), { maxLength: 4 }) },
    { weight: 2, arbitrary: fc.dictionary(key, anyValue(o, depth - 1), { maxKeys: 5 }) },
  );
}

/** Values a schema must refuse (or handle): wrong types, nulls, boundaries, deep and wide shapes. */
function hostile(o: FuzzOptions): fc.Arbitrary<Json> {
  return fc.oneof(
    fc.constant(null),
    fc.boolean(),
    fc.constantFrom(...BOUNDARY_NUMBERS),
    rawNumber,
    fc.constantFrom(...EVIL_STRINGS),
    strings(o.maxString),
    fc.constant([]),
    fc.constant({}),
    fc.integer({ min: 14, max: 40 }).chain((n) => fc.boolean().map((arr) => deepValue(n, arr))),
    fc.integer({ min: 50, max: 300 }).map((n) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]))),
    fc.constantFrom(...EVIL_KEYS).map((k) => JSON.parse(`{${JSON.stringify(k)}: {"x": 1}}`) as Json),
    anyValue(o, 3),
  );
}

// ---------------------------------------------------------------------------------------------
// Values from schemas

function typesOf(schema: Schema): string[] {
  return typeof schema.type === 'string' ? [schema.type] : Array.isArray(schema.type) ? (schema.type as string[]) : [];
}

/** Mostly a valid value for the schema; sometimes (1 in 21) a hostile one. */
function value(schema: Schema, o: FuzzOptions, name: string, depth = 0): fc.Arbitrary<Json> {
  return fc.oneof({ weight: 20, arbitrary: validValue(schema, o, name, depth) }, { weight: 1, arbitrary: hostile(o) });
}

function validValue(schema: Schema, o: FuzzOptions, name: string, depth: number): fc.Arbitrary<Json> {
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as Json[]));
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.anyOf))
    return fc.oneof(...(schema.anyOf as Schema[]).map((s) => validValue(s, o, name, depth)));
  const types = typesOf(schema);
  if (types.length === 0) return anyValue(o, 2);
  const options = types.map((t) => typed(t, schema, o, name, depth));
  return options.length === 1 ? options[0]! : fc.oneof(...options);
}

function typed(type: string, schema: Schema, o: FuzzOptions, name: string, depth: number): fc.Arbitrary<Json> {
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
    case 'number': {
      const min = (schema.minimum as number | undefined) ?? (schema.exclusiveMinimum as number | undefined) ?? -1e6;
      const max = (schema.maximum as number | undefined) ?? (schema.exclusiveMaximum as number | undefined) ?? 1e6;
      const lo = Math.max(min, -1e9);
      const hi = Math.min(max, 1e9);
      const inRange =
        type === 'integer'
          ? fc.integer({ min: Math.ceil(lo), max: Math.floor(hi) })
          : fc.double({ min: lo, max: hi, noNaN: true });
      return fc.oneof(
        { weight: 4, arbitrary: inRange },
        { weight: 1, arbitrary: fc.constantFrom(min, max, ...BOUNDARY_NUMBERS) },
      );
    }
    case 'string': {
      const kind = refOfField(name);
      if (kind)
        return fc.oneof(
          { weight: 8, arbitrary: fc.constant(ref(kind)) },
          { weight: 1, arbitrary: fc.constantFrom('nope', 'prod_01ARZ3NDEKTSV4RRFFQ69G5FAV', 'x'.repeat(64)) },
        );
      if (schema.format === 'date-time')
        return fc.oneof(
          fc.constantFrom(...DATES),
          fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
        );
      if (schema.format === 'uri' || /uri$/i.test(name))
        return fc.constantFrom(
          'https://example.com/a',
          's3://bucket/key',
          'not a uri',
          'https://agent.example.com/chat?x=1',
        );
      if (name === 'url')
        return fc.constantFrom(
          'https://agent.example.com/chat',
          'http://127.0.0.1:1/x',
          'ftp://x',
          'https://user:pw@x.example.com',
        );
      if (name === 'inputTemplate')
        return fc.constantFrom(
          '{"message": "{{ input.user_message }}"}',
          '{{ input.user_message | dump }}',
          '{% if %}',
          '{{ input.user_message }}{{ 7*7 }}',
        );
      if (name === 'phoneNumber') return fc.constantFrom('+14155550123', '+1', '+123456789012345', '555-1234');
      if (name === 'sort') return fc.constantFrom('createdAt:desc', 'name:asc', 'nope:asc', 'name:up');
      const pattern = typeof schema.pattern === 'string' ? schema.pattern : undefined;
      if (pattern?.startsWith('^[A-Za-z0-9_-]+$')) return fc.stringMatching(/^[A-Za-z0-9_-]{1,20}$/);
      if (pattern)
        return fc.oneof(
          fc
            .stringMatching(new RegExp(pattern))
            .filter((s) => s.length <= ((schema.maxLength as number | undefined) ?? 200)),
          strings(o.maxString),
        );
      return strings(
        o.maxString,
        (schema.minLength as number | undefined) ?? 0,
        (schema.maxLength as number | undefined) ?? Infinity,
      );
    }
    case 'array': {
      const items = (schema.items as Schema | undefined) ?? {};
      const minLength = (schema.minItems as number | undefined) ?? 0;
      const maxLength = Math.max(minLength, Math.min((schema.maxItems as number | undefined) ?? 5, 5));
      const arr = fc.array(value(items, o, singular(name), depth + 1), { minLength, maxLength });
      return schema.uniqueItems ? arr.map((a) => [...new Map(a.map((x) => [JSON.stringify(x), x])).values()]) : arr;
    }
    case 'object':
      return objectValue(schema, o, depth);
    default:
      return anyValue(o, 2);
  }
}

const singular = (name: string) => name.replace(/s$/, '');

function objectValue(schema: Schema, o: FuzzOptions, depth: number): fc.Arbitrary<Json> {
  const props = (schema.properties as Record<string, Schema> | undefined) ?? {};
  if (Object.keys(props).length === 0 || depth > 6) {
    // A free-form map or a record: JSON-ish values under hostile keys now and then.
    const valueSchema = Object.values((schema.patternProperties as Record<string, Schema> | undefined) ?? {})[0];
    const key = fc.oneof(
      { weight: 10, arbitrary: fc.string({ minLength: 1, maxLength: 16 }) },
      { weight: 1, arbitrary: fc.constantFrom(...EVIL_KEYS) },
    );
    const v = valueSchema ? value(valueSchema, o, '', depth + 1) : anyValue(o, 3);
    const base = fc.dictionary(key, v, { maxKeys: 6 });
    if (schema.freeForm) {
      return fc.oneof(
        { weight: 6, arbitrary: base },
        { weight: 1, arbitrary: fc.integer({ min: 10, max: 20 }).map((n) => deepValue(n, false)) },
      );
    }
    return base;
  }
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const entries = Object.entries(props);
  const field = ([name, s]: [string, Schema]) => value(s, o, name, depth + 1).map((v) => [name, v] as [string, Json]);
  const requiredArb = fc.tuple(...entries.filter(([n]) => required.has(n)).map(field));
  const optionalArb = fc
    .subarray(entries.filter(([n]) => !required.has(n)))
    .chain((chosen) => (chosen.length ? fc.tuple(...chosen.map(field)) : fc.constant([] as [string, Json][])));
  const mutation = fc.oneof(
    { weight: 20, arbitrary: fc.constant<Mutation>({ kind: 'none' }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(...entries.map(([n]) => n)).map<Mutation>((n) => ({ kind: 'drop', name: n })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(...EVIL_KEYS, 'extraField'), anyValue(o, 1))
        .map<Mutation>(([k, v]) => ({ kind: 'extra', name: k, value: v })),
    },
  );
  return fc.tuple(requiredArb, optionalArb, mutation).map(([req, opt, m]) => {
    const out: Record<string, Json> = {};
    for (const [k, v] of [...req, ...opt]) define(out, k, v);
    if (m.kind === 'drop') delete out[m.name];
    if (m.kind === 'extra') define(out, m.name, m.value);
    return out;
  });
}

type Mutation = { kind: 'none' } | { kind: 'drop'; name: string } | { kind: 'extra'; name: string; value: Json };

/** An own property even for `__proto__`, as JSON.parse makes it. */
function define(target: Record<string, Json>, key: string, v: Json): void {
  Object.defineProperty(target, key, { value: v, enumerable: true, writable: true, configurable: true });
}

// ---------------------------------------------------------------------------------------------
// Requests

const BAD_PATH_IDS = [
  '%E0%A4%A',
  '%',
  '%zz',
  '%00',
  '..%2F..%2Fetc',
  '%2F',
  '%ED%A0%80',
  'a%20b',
  '%F0%9F%98%80',
  '~',
  'x'.repeat(3000),
  "'",
  '%C0%AF',
];
const RAW_QUERIES = [
  'limit=%E0%A4%A',
  'limit=%',
  'ids=%zz',
  '%=1',
  'limit=1&limit=2',
  'offset=&limit=',
  '&&&',
  'limit',
  'a[b]=1',
  'limit=%2B1',
  'limit=1%00',
];

function pathArb(c: RouteContract): fc.Arbitrary<string> {
  if (!c.route.path.includes('{')) return fc.constant(c.route.path);
  const kind = PATH_REFS.find(([re]) => re.test(c.route.path))?.[1] ?? 'product';
  const id = fc.oneof(
    { weight: 12, arbitrary: fc.constant(ref(kind)) },
    { weight: 1, arbitrary: fc.constantFrom(...REF_KINDS).map(ref) },
    { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 30 }).map((s) => safeEncode(s)) },
    { weight: 1, arbitrary: fc.constantFrom(...BAD_PATH_IDS) },
  );
  return id.map((v) => c.route.path.replace(/\{\w+\}/, v));
}

function safeEncode(s: string): string {
  try {
    return encodeURIComponent(s);
  } catch {
    return s; // a lone surrogate cannot be percent-encoded: sent as is
  }
}

function queryArb(c: RouteContract, o: FuzzOptions): fc.Arbitrary<[string, string][]> {
  const props = Object.entries((c.query.properties as Record<string, Schema> | undefined) ?? {});
  const required = new Set((c.query.required as string[] | undefined) ?? []);
  const one = ([name, s]: [string, Schema]): fc.Arbitrary<[string, string][]> => {
    const items = typesOf(s).includes('array') ? ((s.items as Schema | undefined) ?? {}) : s;
    const scalar = queryScalar(items, o, name);
    if (typesOf(s).includes('array')) {
      return fc.oneof(
        fc.array(scalar, { minLength: 1, maxLength: 3 }).map((vs) => vs.map((v) => [name, v] as [string, string])),
        fc.array(scalar, { minLength: 1, maxLength: 3 }).map((vs) => [[name, vs.join(',')] as [string, string]]),
      );
    }
    return fc.oneof(
      { weight: 10, arbitrary: scalar.map((v) => [[name, v] as [string, string]]) },
      {
        weight: 1,
        arbitrary: fc.tuple(scalar, scalar).map(
          ([a, b]) =>
            [
              [name, a],
              [name, b],
            ] as [string, string][],
        ),
      },
    );
  };
  const optional = props.filter(([n]) => !required.has(n));
  const chosen = fc.subarray(optional, { maxLength: Math.min(4, optional.length) });
  const extra = fc.oneof(
    { weight: 10, arbitrary: fc.constant([] as [string, string][]) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(...EVIL_KEYS, 'unknownParam'), fc.constantFrom(...QUERY_NUMBERS, ...EVIL_STRINGS))
        .map(([k, v]) => [[k, v] as [string, string]]),
    },
    { weight: 1, arbitrary: fc.constantFrom(...RAW_QUERIES).map((raw) => [...new URLSearchParams(raw)]) },
  );
  const requiredArb = fc.tuple(...props.filter(([n]) => required.has(n)).map(one));
  return fc
    .tuple(
      requiredArb,
      chosen.chain((ps) => (ps.length ? fc.tuple(...ps.map(one)) : fc.constant([] as [string, string][][]))),
      extra,
    )
    .map(([req, opt, ex]) => [...req.flat(), ...opt.flat(), ...ex]);
}

function queryScalar(schema: Schema, o: FuzzOptions, name: string): fc.Arbitrary<string> {
  const types = typesOf(schema);
  const hostileText = fc.constantFrom(...QUERY_NUMBERS, ...EVIL_STRINGS);
  let valid: fc.Arbitrary<string>;
  if (types.includes('integer') || types.includes('number')) {
    const min = (schema.minimum as number | undefined) ?? 0;
    const max = Math.min((schema.maximum as number | undefined) ?? 1000, 1e6);
    valid = fc.integer({ min: Math.ceil(min), max: Math.floor(max) }).map(String);
  } else if (types.includes('boolean')) {
    valid = fc.constantFrom('true', 'false', 'TRUE', '1', 'yes');
  } else {
    valid = validValue(schema, o, name, 0).map((v) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? '')));
  }
  return fc.oneof({ weight: 6, arbitrary: valid }, { weight: 1, arbitrary: hostileText });
}

/** Invalid UTF-8 byte sequences, decoded as the local server and API Gateway decode them. */
const BAD_BYTES = [[0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xe2, 0x82]];

function bodyArb(c: RouteContract, o: FuzzOptions): fc.Arbitrary<string | undefined> {
  if (!c.body) {
    return fc.oneof(
      { weight: 12, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: fc.constantFrom('{}', '{"a":1}', 'null', '[]') },
    );
  }
  const json = value(c.body, o, 'body').map(serialise);
  return fc.oneof(
    { weight: 24, arbitrary: json },
    {
      weight: 1,
      arbitrary: json.chain((text) => fc.nat({ max: Math.max(0, text.length - 1) }).map((n) => text.slice(0, n))),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(json, fc.constantFrom(...BAD_BYTES)).map(([text, bytes]) => {
        const at = text.indexOf('"', 1) + 1 || 1;
        return Buffer.concat([
          Buffer.from(text.slice(0, at)),
          Buffer.from(bytes),
          Buffer.from(text.slice(at)),
        ]).toString('utf8');
      }),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '',
        ' ',
        'null',
        '[]',
        '"text"',
        '1e309',
        '{"a":1}{',
        '\ufeff{}',
        '{"__proto__":{"polluted":1}}',
        '['.repeat(5000),
      ),
    },
    { weight: 1, arbitrary: fc.integer({ min: 30, max: 20_000 }).map((n) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`) },
  );
}

/** JSON text with `"@raw:<token>"` placeholders replaced by the bare number tokens. */
function serialise(v: Json): string {
  return JSON.stringify(v).replace(/"@raw:([^"]*)"/g, '$1');
}

export function requestArb(contracts: RouteContract[], o: FuzzOptions): fc.Arbitrary<FuzzRequest> {
  // Deletes are rarer, so the pool's records live long enough for the other routes to use them.
  const route = fc.oneof(
    ...contracts.map((c) => ({ weight: c.route.method === 'DELETE' ? 1 : 4, arbitrary: fc.constant(c) })),
  );
  return route.chain((c) =>
    fc
      .record({
        path: pathArb(c),
        query: queryArb(c, o),
        body: bodyArb(c, o),
        contentType: fc.oneof(
          { weight: 20, arbitrary: fc.constant('application/json') },
          {
            weight: 1,
            arbitrary: fc.constantFrom(
              'text/plain',
              'application/json; charset=latin1',
              'application/vnd.api+json',
              '',
            ),
          },
        ),
        admin: fc.oneof({ weight: 4, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
      })
      .map(
        ({ path, query, body, contentType, admin }): FuzzRequest => ({
          handler: c.route.handler,
          method: c.route.method,
          path,
          query,
          headers: contentType ? { 'content-type': contentType as string } : ({} as Record<string, string>),
          body,
          admin: admin || c.route.access !== 'member',
        }),
      ),
  );
}

// ---------------------------------------------------------------------------------------------
// Running and checking

export type Pool = Partial<Record<RefKind, string>>;

/** Fills `@ref:<kind>` placeholders with the pool's ids (a missing record gives an unknown id). */
export function resolveRefs(text: string, pool: Pool): string {
  return text.replace(/@ref:(\w+)/g, (_, kind: string) => pool[kind as RefKind] ?? `${kind}_missing`);
}

const INTERNALS = [
  /\n\s+at /,
  / {4}at /,
  /DynamoDB/i,
  /ValidationException/,
  /ConditionalCheckFailed/,
  /TransactionCanceled/,
  /TypeError/,
  /RangeError/,
  /ReferenceError/,
  /SyntaxError/,
  /undefined is not/,
  /Cannot read prop/,
  /is not a function/,
  /\bS3\b.*(NoSuchKey|AccessDenied)/,
  /AWS SDK/i,
  /node_modules/,
];

/** The property: why a response is wrong, or undefined when it is fine. */
export function checkResponse(res: GatewayResponse): string | undefined {
  if (res.statusCode >= 500) return `status ${res.statusCode}`;
  // A route that answers a document (JUnit XML) on success: it must not be empty or show internals.
  const type = Object.entries(res.headers).find(([k]) => k.toLowerCase() === 'content-type')?.[1] ?? '';
  if (res.statusCode < 300 && /^application\/xml\b/i.test(type)) {
    const internal = INTERNALS.find((re) => re.test(res.body));
    return res.body.trim() === ''
      ? 'an empty XML answer'
      : internal
        ? `the XML shows internals (${internal})`
        : undefined;
  }
  let body: unknown;
  try {
    body = res.body === '' ? undefined : JSON.parse(res.body);
  } catch {
    return 'the body is not JSON';
  }
  if (res.statusCode >= 300) {
    const b = body as { error?: unknown; message?: unknown } | undefined;
    if (!b || typeof b !== 'object' || typeof b.error !== 'string' || typeof b.message !== 'string')
      return 'an error body without {error, message} strings';
    const internal = INTERNALS.find((re) => re.test(b.message as string) || re.test(b.error as string));
    if (internal) return `an error message shows internals (${internal})`;
    return undefined;
  }
  if (body === undefined) return 'a success without a JSON body';
  return undefined;
}

export interface Keys {
  member: string;
  admin: string;
}

/** Sends one generated request (placeholders filled in) through the local gateway. */
export async function send(
  req: FuzzRequest,
  pool: Pool,
  keys: Keys,
): Promise<{ concrete: Finding['request']; res: GatewayResponse }> {
  const path = resolveRefs(req.path, pool);
  const query = req.query.map(([k, v]) => [resolveRefs(k, pool), resolveRefs(v, pool)] as [string, string]);
  const body = req.body === undefined ? undefined : resolveRefs(req.body, pool);
  const headers = { ...req.headers, authorization: `Bearer ${req.admin ? keys.admin : keys.member}` };
  const grouped = new Map<string, string[]>();
  for (const [k, v] of query) grouped.set(k, [...(grouped.get(k) ?? []), v]);
  const concrete = { method: req.method, path, query, headers: { ...req.headers }, body };
  try {
    const res = await dispatch({ method: req.method, path, query: Object.fromEntries(grouped), headers, body });
    return { concrete, res };
  } catch (error) {
    return { concrete, res: { statusCode: 599, headers: {}, body: JSON.stringify({ thrown: String(error) }) } };
  }
}

/** The `index`-th request of a run with this seed (each request has its own seed: `seed + index`). */
export function generate(arb: fc.Arbitrary<FuzzRequest>, seed: number, index: number): FuzzRequest {
  return fc.sample(arb, { seed: (seed + index) | 0, numRuns: 1 })[0]!;
}

/** Runs `runs` requests; calls `refresh` every `refreshEvery` requests for a fresh pool. */
export async function fuzz(options: {
  contracts: RouteContract[];
  seed: number;
  runs: number;
  keys: Keys;
  refresh: () => Promise<Pool>;
  refreshEvery?: number;
  fuzz: FuzzOptions;
  onProgress?: (done: number, findings: number, statuses: Map<number, number>) => void;
  onFinding?: (f: Finding) => void;
}): Promise<{ findings: Finding[]; statuses: Map<number, number> }> {
  const arb = requestArb(options.contracts, options.fuzz);
  const findings: Finding[] = [];
  const statuses = new Map<number, number>();
  let pool: Pool = {};
  for (let i = 0; i < options.runs; i++) {
    if (i % (options.refreshEvery ?? 50) === 0) pool = await options.refresh();
    const req = generate(arb, options.seed, i);
    const { concrete, res } = await send(req, pool, options.keys);
    statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
    const reason = checkResponse(res);
    if (reason) {
      const finding: Finding = {
        index: i,
        seed: (options.seed + i) | 0,
        reason,
        request: concrete,
        status: res.statusCode,
        response: res.body.slice(0, 500),
      };
      findings.push(finding);
      options.onFinding?.(finding);
    }
    if ((i + 1) % 250 === 0) options.onProgress?.(i + 1, findings.length, statuses);
  }
  return { findings, statuses };
}

export function describeFinding(f: Finding): string {
  const body =
    f.request.body === undefined
      ? ''
      : `\n  body: ${f.request.body.length > 600 ? `${f.request.body.slice(0, 600)}… (${f.request.body.length} chars)` : f.request.body}`;
  const query = f.request.query.length ? `?${new URLSearchParams(f.request.query).toString()}` : '';
  return `finding #${f.index} (reproduce: FUZZ_SEED=${f.seed} FUZZ_RUNS=1 npm run fuzz): ${f.reason}\n  ${f.request.method} ${f.request.path}${query}\n  headers: ${JSON.stringify(f.request.headers)}${body}\n  → ${f.status} ${f.response}`;
}

// ---------------------------------------------------------------------------------------------
// The pool of real records

interface Api {
  post: (path: string, body?: unknown) => Promise<{ status: number; body: any }>;
  put: (path: string, body?: unknown) => Promise<{ status: number; body: any }>;
}

/**
 * Creates one record of each kind for the member tenant (and a model with the admin key), so
 * generated requests reach the code behind the reference checks. A failed create leaves its kind
 * out (its placeholder then names an unknown id).
 */
export async function createPool(api: Api, admin: Api, organizationId: string): Promise<Pool> {
  const pool: Pool = { organization: organizationId, metricGroup: 'mgrp_is_json', model: 'fuzz-model' };
  const made = async (
    kind: RefKind,
    res: Promise<{ status: number; body: any }>,
    pick: (b: any) => string = (b) => b.id,
  ) => {
    const r = await res;
    if (r.status === 200 || r.status === 201) pool[kind] = pick(r.body);
  };
  await made('product', api.post('/products', { name: 'fuzz product', description: 'd', capabilities: ['c'] }));
  const productId = pool.product;
  await made(
    'endpointConnection',
    api.post('/endpointConnections', {
      productId,
      name: 'fuzz',
      url: 'https://agent.example.com/chat',
      inputTemplate: '{"m": "{{ input.user_message }}"}',
      outputMapping: { output: '$.reply' },
      type: 'CONVERSATION',
      headers: { 'X-Fuzz': '1' },
    }),
  );
  await made(
    'version',
    api.post('/versions', {
      productId,
      name: `v${Math.random().toString(36).slice(2, 8)}`,
      conversationEndpointConnectionId: pool.endpointConnection,
    }),
  );
  await made(
    'phoneConnection',
    api.post('/phoneConnections', { productId, name: 'fuzz line', phoneNumber: '+14155550123' }),
  );
  await made(
    'metric',
    api.post('/metrics', {
      name: 'fuzz metric',
      source: 'PARTIAL_PROMPT',
      evaluationParams: ['input', 'actual_output'],
      judgePrompt: 'Score it.',
      evaluatorModelName: 'gpt-4o',
    }),
  );
  await made(
    'specification',
    api.post('/specifications', { productId, description: 'polite', type: 'CAPABILITY', testType: 'QUALITY' }),
  );
  await made('test', api.post('/tests', { productId, name: 'fuzz test', type: 'QUALITY', metadata: { a: 1 } }));
  await made('testCase', api.post('/testCases', { testId: pool.test, input: 'hello', expectedOutput: 'hi' }));
  await made('session', api.post('/sessions', { versionId: pool.version, metadata: { channel: 'web' } }));
  await made(
    'turn',
    api.post('/inferenceResults', {
      sessionId: pool.session,
      input: 'hello',
      output: '{"a":1}',
      usage: { inputTokens: 3 },
    }),
  );
  await made(
    'span',
    api.post('/traces', {
      inferenceResultId: pool.turn,
      name: 'tool',
      type: 'TOOL',
      startTime: '2026-01-01T00:00:00Z',
    }),
  );
  await made(
    'evaluation',
    api.post('/evaluations', { sessionId: pool.session, metricIds: ['met_is_json'] }),
    (b) => b[0]?.id,
  );
  await made(
    'monitor',
    api.post('/monitors', {
      productId,
      name: 'fuzz monitor',
      metricGroupIds: ['mgrp_is_json'],
      samplingPercentage: 50,
    }),
  );
  await made('apiKey', api.post('/apiKeys', { name: 'fuzz key' }));
  await made(
    'model',
    admin.put('/models/fuzz-model', { provider: 'openai', creditsPerEvaluation: 1 }),
    () => 'fuzz-model',
  );
  return pool;
}
