import { describe, expect, it } from 'vitest';
import { call, newTenant, type ApiResponse } from '../support/api.js';
import { connectionBody, createConnection, createProduct, createVersion } from '../support/fixtures.js';

/** What DynamoDB cannot store is a 400 naming the field, never a 5xx. */

const MAX = Number.MAX_SAFE_INTEGER;
const NUMBER_RULE = `must be a finite number within ±${MAX}`;

/** `{"a":{"a":…1}}` with `levels` objects, as JSON text. */
const nestedJson = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

async function setup() {
  const t = await newTenant();
  const product = await createProduct(t.api);
  const version = await createVersion(t.api, product.id);
  const session = (await t.api.post('/sessions', { versionId: version.id })).body as { id: string };
  const turn = (await t.api.post('/inferenceResults', { sessionId: session.id, input: 'hello', output: 'hi' }))
    .body as { id: string };
  /** A body sent as raw JSON text (1e309 and lone surrogates survive only there). */
  const raw = (method: string, path: string, text: string) =>
    call(method, path, { key: t.key, rawBody: text, headers: { 'content-type': 'application/json' } });
  return { ...t, product, version, session, turn, raw };
}

function expect400(res: ApiResponse, message: string | RegExp) {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.error).toBe('Bad Request');
  if (typeof message === 'string') expect(res.body.message).toBe(message);
  else expect(res.body.message).toMatch(message);
}

describe('sessions: metadata and context are free-form but storable', () => {
  it('refuses metadata deeper than 16 levels, empty and prototype keys, and unstorable numbers', async () => {
    const t = await setup();
    const v = t.version.id;
    expect400(
      await t.raw('POST', '/sessions', `{"versionId":"${v}","metadata":${nestedJson(17)}}`),
      `metadata${'.a'.repeat(16)} must not be nested deeper than 16 levels`,
    );
    expect((await t.raw('POST', '/sessions', `{"versionId":"${v}","metadata":${nestedJson(16)}}`)).status).toBe(201);
    expect400(
      await t.raw('POST', '/sessions', `{"versionId":"${v}","metadata":{"__proto__":{"admin":true}}}`),
      "metadata key '__proto__' is not allowed",
    );
    expect400(
      await t.raw('POST', '/sessions', `{"versionId":"${v}","metadata":{"a":{"constructor":1}}}`),
      "metadata.a key 'constructor' is not allowed",
    );
    expect400(await t.raw('POST', '/sessions', `{"versionId":"${v}","metadata":{"":1}}`), 'metadata has an empty key');
    expect400(
      await t.raw('POST', '/sessions', `{"versionId":"${v}","metadata":{"x":1e309}}`),
      `metadata.x ${NUMBER_RULE}`,
    );
    expect400(
      await t.raw('POST', '/sessions', `{"versionId":"${v}","metadata":{"x":[1e200]}}`),
      `metadata.x[0] ${NUMBER_RULE}`,
    );
    expect400(
      await t.raw('POST', '/sessions', `{"versionId":"${v}","metadata":{"x":5e-324}}`),
      'metadata.x must be 0 or at least 1e-130 in absolute value',
    );
    expect400(
      await t.api.post('/sessions', { versionId: v, metadata: { blob: 'x'.repeat(70_000) } }),
      'metadata must be at most 65536 bytes as JSON',
    );
    expect400(await t.api.post('/sessions', { versionId: v, context: { '': 'x' } }), 'context has an empty key');
    expect400(
      await t.api.post('/sessions', { versionId: v, context: 7 }),
      'context must be a string or an object or null',
    );
    expect400(
      await t.api.patch(`/sessions/${t.session.id}`, { metadata: { prototype: 1 } }),
      "metadata key 'prototype' is not allowed",
    );
    const ok = await t.api.post('/sessions', {
      versionId: v,
      metadata: { n: -MAX, tiny: 1e-130, zero: -0, list: [1, 'two', null, { x: true }] },
    });
    expect(ok.status).toBe(201);
    expect((await t.api.get(`/sessions/${ok.body.id}`)).body.metadata).toEqual({
      n: -MAX,
      tiny: 1e-130,
      zero: 0,
      list: [1, 'two', null, { x: true }],
    });
  });

  it('refuses a body nested deeper than 32 levels and strings that are not valid Unicode', async () => {
    const t = await setup();
    expect400(
      await t.raw('POST', '/sessions', `{"versionId":"${t.version.id}","metadata":${nestedJson(100_000)}}`),
      /^metadata(\.a){31} must not be nested deeper than 32 levels$/,
    );
    expect400(
      await t.raw('POST', '/products', '{"name":"bad \\ud800 name"}'),
      'name must be valid Unicode (it has an unpaired surrogate)',
    );
    expect((await t.raw('POST', '/products', '{"name":"emoji \\ud83d\\ude00"}')).status).toBe(201);
  });
});

describe('inference results and spans: numbers and dates', () => {
  it('refuses usage, latency and cost DynamoDB cannot hold', async () => {
    const t = await setup();
    const s = t.session.id;
    expect400(
      await t.api.post('/inferenceResults', { sessionId: s, input: 'x', usage: { inputTokens: 2 ** 53 } }),
      `usage.inputTokens ${NUMBER_RULE}`,
    );
    expect400(
      await t.raw('POST', '/inferenceResults', `{"sessionId":"${s}","input":"x","latencyMs":1e309}`),
      `latencyMs ${NUMBER_RULE}`,
    );
    expect400(
      await t.raw('POST', '/inferenceResults', `{"sessionId":"${s}","input":"x","cost":5e-324}`),
      'cost must be 0 or at least 1e-130 in absolute value',
    );
    expect400(
      await t.api.patch(`/inferenceResults/${t.turn.id}`, { usage: { outputTokens: -1 } }),
      'usage.outputTokens must be at least 0',
    );
    expect(
      (
        await t.api.post('/inferenceResults', {
          sessionId: s,
          input: 'x',
          usage: { inputTokens: MAX },
          latencyMs: 0.5,
          cost: 1e-9,
        })
      ).status,
    ).toBe(201);
  });

  it('reads a leap second as the last millisecond of its minute', async () => {
    const t = await setup();
    const span = await t.api.post('/traces', {
      inferenceResultId: t.turn.id,
      name: 'llm',
      type: 'GENERATION',
      startTime: '2026-06-30T23:59:60Z',
      endTime: '2026-07-01T01:00:00.5+01',
    });
    expect(span.status, JSON.stringify(span.body)).toBe(201);
    expect(span.body).toMatchObject({
      startTime: '2026-06-30T23:59:59.999Z',
      endTime: '2026-07-01T00:00:00.500Z',
      latencyMs: 501,
    });
    const found = await t.api.get('/traces', {
      inferenceResultIds: t.turn.id,
      fromStartTime: '2026-06-30T23:59:60Z',
      toStartTime: '2026-06-30 23:59:60z',
    });
    expect(found.body.map((x: { id: string }) => x.id)).toEqual([span.body.id]);
    expect400(
      await t.api.post('/traces', {
        inferenceResultId: t.turn.id,
        name: 'x',
        type: 'SPAN',
        inputData: JSON.parse('{"__proto__":1}'),
      }),
      "inputData key '__proto__' is not allowed",
    );
    expect400(
      await t.raw(
        'POST',
        '/traces',
        `{"inferenceResultId":"${t.turn.id}","name":"x","type":"SPAN","outputData":{"n":-1e309}}`,
      ),
      `outputData.n ${NUMBER_RULE}`,
    );
  });

  it('list date filters accept every RFC 3339 form', async () => {
    const t = await setup();
    const res = await t.api.get('/products', {
      fromCreatedAt: '2000-06-30T23:59:60Z',
      toCreatedAt: '2999-01-01t00:00:00+01',
    });
    expect(res.status).toBe(200);
    expect(res.body.map((p: { id: string }) => p.id)).toEqual([t.product.id]);
    expect400(
      await t.api.get('/products', { fromCreatedAt: '2030-01-01T00:00:00Z', toCreatedAt: '2029-12-31T23:59:60Z' }),
      'fromCreatedAt must not be after toCreatedAt',
    );
  });
});

describe('query numbers', () => {
  it('refuses Infinity, 1e309, NaN and blanks in list and results queries', async () => {
    const t = await setup();
    expect400(await t.api.get('/products', { limit: '-Infinity' }), 'limit must be an integer');
    expect400(await t.api.get('/products', { offset: '1e309' }), `offset ${NUMBER_RULE}`);
    expect400(await t.api.get('/products', { offset: 'NaN' }), 'offset must be an integer');
    expect400(await t.api.get('/products', { limit: '' }), 'limit must be an integer');
    expect400(await t.api.get('/products', { limit: ['1', '2'] }), "query parameter 'limit' must be given once");
    expect((await t.api.get('/products', { limit: '1e2', offset: '0' })).status).toBe(200);
    const monitor = await t.api.post('/monitors', {
      productId: t.product.id,
      name: 'm',
      metricGroupIds: ['mgrp_is_json'],
      samplingPercentage: 100,
    });
    expect(monitor.status).toBe(201);
    expect400(await t.api.get(`/monitors/${monitor.body.id}/results`, { days: 'Infinity' }), 'days must be an integer');
    expect400(await t.api.get(`/monitors/${monitor.body.id}/results`, { days: '1e309' }), `days ${NUMBER_RULE}`);
    expect((await t.api.get(`/monitors/${monitor.body.id}/results`, { days: '7' })).status).toBe(200);
    expect400(
      await t.api.post('/monitors', {
        productId: t.product.id,
        name: 'm2',
        metricGroupIds: ['mgrp_is_json'],
        samplingPercentage: 100,
        monthlyCreditCap: 2 ** 53,
      }),
      `monthlyCreditCap ${NUMBER_RULE}`,
    );
    expect400(
      await t.api.patch(`/monitors/${monitor.body.id}`, { monthlyCreditCap: MAX + 1 }),
      `monthlyCreditCap ${NUMBER_RULE}`,
    );
  });
});

describe('endpoint connections: headers and maps', () => {
  it('refuses header names that are not tokens, connection-level headers and CR/LF/NUL in values', async () => {
    const t = await setup();
    const p = t.product.id;
    expect400(
      await t.api.post('/endpointConnections', connectionBody(p, { headers: { 'X-H\r\nInjected: 1': 'v' } })),
      /^headers: "X-H\\r\\nInjected: 1" is not a valid header name/,
    );
    expect400(
      await t.api.post('/endpointConnections', connectionBody(p, { headers: { HOST: 'internal' } })),
      'headers.HOST is not allowed (it is set by the HTTP client)',
    );
    expect400(
      await t.api.post('/endpointConnections', connectionBody(p, { headers: { 'X-A': 'v\r\nInjected: 1' } })),
      'headers.X-A must not contain CR, LF or NUL characters',
    );
    expect400(
      await t.api.post('/endpointConnections', connectionBody(p, { headers: JSON.parse('{"__proto__":"x"}') })),
      "headers key '__proto__' is not allowed",
    );
    expect400(
      await t.api.post('/endpointConnections', connectionBody(p, { outputMapping: { output: '$.a', '': '$.b' } })),
      'outputMapping has an empty key',
    );
    expect400(
      await t.raw(
        'POST',
        '/endpointConnections',
        JSON.stringify(connectionBody(p)).replace('"type"', '"rateLimit":1e309,"type"'),
      ),
      `rateLimit ${NUMBER_RULE}`,
    );
    expect400(
      await t.api.post('/endpointConnections', connectionBody(p, { rateLimit: 2 ** 53 })),
      `rateLimit ${NUMBER_RULE}`,
    );
    const c = await createConnection(t.api, p, { headers: { 'X-Api-Version': '2' } });
    expect400(
      await t.api.patch(`/endpointConnections/${c.id}`, { headers: { 'Transfer-Encoding': 'chunked' } }),
      'headers.Transfer-Encoding is not allowed (it is set by the HTTP client)',
    );
    expect((await t.api.get(`/endpointConnections/${c.id}`)).body.headers).toEqual({ 'X-Api-Version': '2' });
  });
});

describe('tests and test cases: metadata and structured input', () => {
  it('refuses unstorable metadata and input objects', async () => {
    const t = await setup();
    expect400(
      await t.raw('POST', '/tests', `{"productId":"${t.product.id}","name":"x","metadata":${nestedJson(17)}}`),
      /^metadata(\.a){16} must not be nested deeper than 16 levels$/,
    );
    const test = await t.api.post('/tests', {
      productId: t.product.id,
      name: 'qa',
      type: 'QUALITY',
      metadata: { team: 'qa' },
    });
    expect(test.status).toBe(201);
    expect400(await t.api.patch(`/tests/${test.body.id}`, { metadata: { '': 1 } }), 'metadata has an empty key');
    expect400(
      await t.api.post('/testCases', { testId: test.body.id, input: JSON.parse('{"q":{"__proto__":{}}}') }),
      "input.q key '__proto__' is not allowed",
    );
    expect400(
      await t.raw('POST', '/testCases', `{"testId":"${test.body.id}","input":{"n":9007199254740993}}`),
      `input.n ${NUMBER_RULE}`,
    );
    expect((await t.api.post('/testCases', { testId: test.body.id, input: { question: 'hi', n: 3 } })).status).toBe(
      201,
    );
  });
});

describe('what the fuzzer found', () => {
  it('answers a malformed percent-encoding in a path with 400, and reads repeated filter ids once', async () => {
    const t = await setup();
    expect400(await call('GET', '/products/%E0%A4%A', { key: t.key }), /malformed percent-encoding/);
    const test = (await t.api.post('/tests', { productId: t.product.id, name: 'qa', type: 'QUALITY' })).body;
    const tc = (await t.api.post('/testCases', { testId: test.id, input: 'hi' })).body;
    const res = await t.api.get('/tests', { testCaseIds: `${tc.id},${tc.id},${tc.id}` });
    expect(res.status).toBe(200);
    expect(res.body.map((x: { id: string }) => x.id)).toEqual([test.id]);
  });
});

describe('models: dates are stored in canonical form', () => {
  it('stores a leap second or an offset date as ISO UTC with milliseconds', async () => {
    const admin = await newTenant({ admin: true });
    const res = await admin.api.put('/models/guard-model', {
      provider: 'openai',
      disabledAt: '2030-06-30T23:59:60Z',
      unselectableAt: '2030-01-01T01:00:00+01:00',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({
      disabledAt: '2030-06-30T23:59:59.999Z',
      unselectableAt: '2030-01-01T00:00:00.000Z',
    });
  });
});
