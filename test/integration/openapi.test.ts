import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApi, CLIENT_TYPES, clientTypes } from '../../infra/openapi.js';
import { routes } from '../../shared/routes.js';
import { matchRoute } from '../../infra/local/gateway.js';
import type { Contract } from '../../shared/http/handler.js';
import { compile } from '../../shared/schemas/ajv.js';
import { call, newTenant } from '../support/api.js';
import { createConnection, createProduct, createVersion } from '../support/fixtures.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
type Media = { schema?: Record<string, unknown>; example?: unknown };
type Operation = {
  summary?: string;
  description?: string;
  parameters: { name: string }[];
  requestBody?: { content: Record<string, Media> };
  responses: Record<
    string,
    { description?: string; headers?: Record<string, unknown>; content?: Record<string, Media> }
  >;
};
type Doc = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, unknown> } };

const pkg = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as { version: string };
let doc: Doc;
beforeAll(async () => {
  doc = (await buildOpenApi(pkg.version)) as unknown as Doc;
});

// The document's schemas as a client reads them (refs into components resolved, no service keywords enforced).
const addFormats = addFormatsModule.default;
const ajv = new Ajv({ strict: false, allErrors: true, allowUnionTypes: true });
addFormats(ajv, ['date-time', 'uri', 'email', 'date']);
const validators = new Map<object, ReturnType<Ajv['compile']>>();
function matches(schema: Record<string, unknown>, value: unknown): string | undefined {
  let validate = validators.get(schema);
  if (!validate) validators.set(schema, (validate = ajv.compile({ ...schema, components: doc.components })));
  return validate(value) ? undefined : ajv.errorsText(validate.errors);
}

const operations = () => routes.map((r) => ({ route: r, op: doc.paths[r.path]![r.method.toLowerCase()]! }));
/** An answer's JSON content, or the one media type of a route that answers a document (JUnit XML). */
const mediaOf = (response: { content?: Record<string, Media> }): Media | undefined =>
  response.content?.['application/json'] ??
  (Object.keys(response.content ?? {}).length === 1 ? Object.values(response.content!)[0] : undefined);

describe('OpenAPI document', () => {
  it('the committed document and client types are what `npm run openapi` writes now', async () => {
    const committed = JSON.parse(readFileSync(resolve(ROOT, 'docs', 'openapi.json'), 'utf8'));
    expect(committed, 'run `npm run openapi` after changing a route, a schema or infra/api-reference.ts').toEqual(
      JSON.parse(JSON.stringify(doc)),
    );
    expect(readFileSync(CLIENT_TYPES, 'utf8'), 'run `npm run openapi`: console/src/api/schema.d.ts is stale').toBe(
      await clientTypes(doc as unknown as Record<string, unknown>),
    );
  });

  it('describes every route with the parameters the handlers validate', () => {
    for (const r of routes) expect(doc.paths[r.path]?.[r.method.toLowerCase()], `${r.method} ${r.path}`).toBeDefined();
    expect(doc.paths['/monitors/{id}/results']!.get!.parameters.map((p) => p.name)).toEqual(['id', 'days']);
    expect(doc.paths['/metrics']!.post!.requestBody).toBeDefined();
  });

  it('gives every operation a summary, a description, a schema and an example for every status, and X-Total-Count on lists', () => {
    for (const { route, op } of operations()) {
      const at = `${route.method} ${route.path}`;
      expect(op.summary, at).toMatch(/\S{3}/);
      expect(op.description!.length, at).toBeGreaterThan(20);
      const statuses = Object.keys(op.responses);
      // GET and DELETE /mcp answer only 405 (a stateless MCP server has no stream or session for them).
      const onlyRefuses = statuses.includes('405');
      expect(
        statuses.some((s) => /^2\d\d$/.test(s)),
        at,
      ).toBe(!onlyRefuses);
      for (const s of ['400', '401', '429', '500']) expect(statuses, at).toContain(s);
      if (route.path.includes('{id}')) expect(statuses, at).toEqual(expect.arrayContaining(['403', '404']));
      if (route.access !== 'member') expect(statuses, at).toContain('403');
      if (op.requestBody) expect(statuses, at).toEqual(expect.arrayContaining(['413', '415']));
      for (const [status, response] of Object.entries(op.responses)) {
        expect(response.description, `${at} ${status}`).toBeTruthy();
        // 204 answers no body, so it documents none.
        if (status === '204') {
          expect(mediaOf(response), `${at} 204`).toBeUndefined();
          continue;
        }
        const media = mediaOf(response);
        expect(media?.schema, `${at} ${status} schema`).toBeDefined();
        expect(media?.example, `${at} ${status} example`).toBeDefined();
        if (Number(status) >= 400) expect(media!.schema).toEqual({ $ref: '#/components/schemas/Error' });
      }
      if (onlyRefuses) continue;
      const success = Object.entries(op.responses).find(([s]) => s.startsWith('2'))![1];
      const isArray = (mediaOf(success)!.schema as { type?: string }).type === 'array';
      if (route.method === 'GET' && isArray && route.handler !== 'sessions/metric-compatibility')
        expect(success.headers?.['X-Total-Count'], at).toBeDefined();
      if (op.requestBody)
        expect(op.requestBody.content['application/json']!.example, `${at} request example`).toBeDefined();
    }
  });

  it('every example matches its schema: responses against the document, requests against the route’s own validator', async () => {
    for (const { route, op } of operations()) {
      const at = `${route.method} ${route.path}`;
      for (const [status, response] of Object.entries(op.responses)) {
        if (status === '204') continue;
        const media = mediaOf(response)!;
        expect(matches(media.schema!, media.example), `${at} ${status} example`).toBeUndefined();
        if (Number(status) >= 400)
          expect((media.example as { error: string }).error, `${at} ${status}`).toMatch(/^[A-Z]/);
      }
      if (op.requestBody) {
        const mod = (await import(pathToFileURL(resolve(ROOT, 'functions', `${route.handler}.ts`)).href)) as {
          handler: { contract: Contract };
        };
        expect(
          () =>
            compile(mod.handler.contract.body!)(structuredClone(op.requestBody!.content['application/json']!.example)),
          `${at} request example`,
        ).not.toThrow();
      }
    }
  });

  it('a route without any of them fails the build', async () => {
    const { apiReference } = await import('../../infra/api-reference.js');
    const saved = apiReference['products/get']!;
    delete (apiReference as Record<string, unknown>)['products/get'];
    try {
      await expect(buildOpenApi(pkg.version)).rejects.toThrow(/no entry for products\/get/);
    } finally {
      (apiReference as Record<string, unknown>)['products/get'] = saved;
    }
  });

  it('what the service answers matches the document: every status is documented and every body fits its schema', async () => {
    const t = await newTenant();
    const other = await newTenant();
    const seen = new Set<string>();
    const check = async (
      method: string,
      path: string,
      options: { body?: unknown; query?: Record<string, string | string[]>; key?: string } = {},
    ) => {
      const res = await call(method, path, { key: options.key ?? t.key, body: options.body, query: options.query });
      const route = matchRoute(method, path)!.route;
      const response = doc.paths[route.path]![method.toLowerCase()]!.responses[String(res.status)];
      expect(
        response,
        `${method} ${path} answered ${res.status}, which the document does not list: ${JSON.stringify(res.body)}`,
      ).toBeDefined();
      expect(matches(mediaOf(response!)!.schema!, res.body), `${method} ${path} ${res.status}`).toBeUndefined();
      expect(res.headers['x-total-count'] !== undefined, `${method} ${path}: X-Total-Count as documented`).toBe(
        response!.headers?.['X-Total-Count'] !== undefined,
      );
      seen.add(`${route.method} ${route.path} ${res.status}`);
      return res.body;
    };

    const product = await createProduct(t.api);
    const connection = await createConnection(t.api, product.id);
    const version = await createVersion(t.api, product.id, { conversationEndpointConnectionId: connection.id });
    await check('GET', '/organization');
    await check('GET', `/products/${product.id}`);
    await check('GET', '/products', { query: { limit: '5' } });
    await check('PATCH', `/products/${product.id}`, { body: { description: 'changed' } });
    await check('GET', `/versions/${version.id}`);
    await check('GET', `/endpointConnections/${connection.id}`);
    await check('GET', '/endpointConnections');
    const key = await check('POST', '/apiKeys', { body: { name: 'ci' } });
    await check('GET', `/apiKeys/${key.id}`);
    await check('GET', '/apiKeys');
    await check('DELETE', `/apiKeys/${key.id}`);
    const human = await check('POST', '/metrics', {
      body: {
        name: 'helpfulness (human)',
        source: 'HUMAN_EVALUATION',
        evaluationParams: ['input'],
        judgePrompt: 'Rate it.',
      },
    });
    await check('GET', `/metrics/${human.id}`);
    await check('GET', '/metrics', { query: { limit: '3' } });
    await check('GET', '/models');
    const spec = await check('POST', '/specifications', {
      body: { productId: product.id, description: 'answers', type: 'CAPABILITY' },
    });
    await check('POST', `/specifications/${spec.id}/metrics`, { body: { metricIds: ['met_non_empty_output'] } });
    await check('GET', `/specifications/${spec.id}/metrics`);
    await check('GET', `/specifications/${spec.id}`);
    const test = await check('POST', '/tests', { body: { productId: product.id, name: 'cases', type: 'QUALITY' } });
    const testCase = await check('POST', '/testCases', {
      body: { testId: test.id, input: 'hello', expectedOutput: 'hi' },
    });
    await check('GET', `/testCases/${testCase.id}`);
    await check('GET', '/testCases', { query: { testIds: test.id } });
    await check('GET', `/tests/${test.id}`);
    await check('GET', '/storage/generate-put-presigned-url', {
      query: { fileName: 'cases.csv', contentType: 'text/csv' },
    });
    const session = await check('POST', '/sessions', { body: { versionId: version.id, customId: 'ticket-1' } });
    const turn = await check('POST', '/inferenceResults', {
      body: { sessionId: session.id, input: 'hello', output: 'hi there' },
    });
    await check('POST', '/inferenceResults/batch', {
      body: {
        sessionId: session.id,
        messages: [
          { role: 'user', content: 'and?' },
          { role: 'assistant', content: 'that is all' },
        ],
      },
    });
    await check('GET', '/inferenceResults', { query: { sessionIds: session.id } });
    const span = await check('POST', '/traces', {
      body: { inferenceResultId: turn.id, name: 'search', type: 'RETRIEVER', outputData: 'a document' },
    });
    await check('POST', '/traces', {
      body: { id: span.id, inferenceResultId: turn.id, name: 'search', type: 'RETRIEVER' },
    });
    await check('GET', `/traces/${span.id}`);
    await check('GET', '/traces', { query: { sessionIds: session.id } });
    await check('GET', `/sessions/${session.id}/metricCompatibility`);
    const evaluations = await check('POST', '/evaluations', {
      body: { sessionId: session.id, metricIds: ['met_non_empty_output', human.id] },
    });
    await check('PATCH', `/evaluations/${evaluations[1].id}`, { body: { humanScore: 0.5, humanReason: 'fine' } });
    await check('GET', `/evaluations/${evaluations[0].id}`);
    await check('GET', '/evaluations', { query: { sessionIds: session.id } });
    await check('PATCH', `/sessions/${session.id}`, { body: { status: 'COMPLETED' } });
    await check('GET', `/sessions/${session.id}`);
    const monitor = await check('POST', '/monitors', {
      body: { productId: product.id, name: 'm', metricGroupIds: ['mgrp_is_json'], samplingPercentage: 50 },
    });
    await check('GET', `/monitors/${monitor.id}/results`, { query: { days: '3' } });
    await check('GET', '/monitors');
    const phone = await check('POST', '/phoneConnections', {
      body: { productId: product.id, name: 'line', phoneNumber: '+14155550123' },
    });
    await check('GET', `/phoneConnections/${phone.id}`);
    await check('DELETE', '/phoneConnections/batch', { body: { ids: [phone.id] } });
    await check('GET', '/build-info');
    // error answers
    await check('GET', `/products/${product.id}`, { key: other.key });
    await check('GET', '/products/prod_missing');
    await check('GET', '/products', { query: { bogus: '1' } });
    await check('GET', '/products', { key: 'evk_nonsense' });
    await check('POST', '/versions', { body: { productId: product.id, name: version.name } });
    await check('PUT', '/models/some-model', { body: { provider: 'openai' } });
    // a record named in a body or a list filter: another organization's is a 403, a missing one (where not a 400) a 404
    const check1 = await check('POST', '/metrics', {
      body: { name: 'mentions refunds', source: 'DETERMINISTIC', check: { type: 'contains', value: 'refund' } },
    });
    await check('POST', '/metrics', {
      body: { name: 'x', source: 'DETERMINISTIC', check: { type: 'is_json' }, parentMetricId: check1.id },
      key: other.key,
    });
    await check('POST', '/metrics', {
      body: {
        name: 'x',
        source: 'DETERMINISTIC',
        check: { type: 'is_json' },
        parentMetricId: 'met_01M87DWFPC8CSFNBCQV4EGH9J9',
      },
    });
    await check('POST', '/versions', { body: { productId: product.id, name: 'theirs' }, key: other.key });
    await check('POST', '/endpointConnections', {
      body: {
        productId: product.id,
        name: 'x',
        url: 'https://agent.example.com/chat',
        type: 'CONVERSATION',
        inputTemplate: '{{ input.user_message }}',
        outputMapping: { output: '$' },
      },
      key: other.key,
    });
    await check('POST', '/specifications', {
      body: { productId: product.id, description: 'd', type: 'CAPABILITY' },
      key: other.key,
    });
    await check('POST', '/phoneConnections', {
      body: { productId: product.id, name: 'line', phoneNumber: '+14155550123' },
      key: other.key,
    });
    await check('POST', '/testCases', { body: { testId: test.id, input: 'x' }, key: other.key });
    await check('GET', '/testCases', { query: { testIds: test.id }, key: other.key });
    await check('GET', '/testCases', { query: { testIds: 'test_01M87DWFPC8CSFNBCQV4EGH9J9' } });
    await check('POST', '/sessions', { body: { versionId: version.id }, key: other.key });
    await check('GET', '/sessions', { query: { runIds: 'run_01M87DWFPC8CSFNBCQV4EGH9J9' } });
    await check('POST', '/inferenceResults', {
      body: { sessionId: session.id, input: 'x', output: 'y' },
      key: other.key,
    });
    await check('POST', '/inferenceResults/batch', {
      body: { sessionId: session.id, messages: [{ role: 'user', content: 'x' }] },
      key: other.key,
    });
    await check('GET', '/inferenceResults', { query: { sessionIds: session.id }, key: other.key });
    await check('GET', '/inferenceResults', { query: { sessionIds: 'sess_01M87DWFPC8CSFNBCQV4EGH9J9' } });
    await check('POST', '/traces', { body: { inferenceResultId: turn.id, name: 'x', type: 'SPAN' }, key: other.key });
    await check('POST', '/traces/batch', {
      body: { spans: [{ inferenceResultId: turn.id, name: 'x', type: 'SPAN' }] },
      key: other.key,
    });
    await check('GET', '/traces', { query: { sessionIds: session.id }, key: other.key });
    await check('GET', '/traces', { query: { inferenceResultIds: 'inf_01M87DWFPC8CSFNBCQV4EGH9J9' } });
    await check('POST', '/evaluations', {
      body: { sessionId: session.id, metricIds: ['met_is_json'] },
      key: other.key,
    });
    await check('GET', '/evaluations', { query: { sessionIds: session.id }, key: other.key });
    await check('GET', '/evaluations', { query: { sessionIds: 'sess_01M87DWFPC8CSFNBCQV4EGH9J9' } });
    await check('POST', '/runs', { body: { versionId: version.id, testId: test.id }, key: other.key });
    await check('POST', '/monitors', {
      body: { productId: product.id, name: 'm', metricGroupIds: ['mgrp_is_json'], samplingPercentage: 50 },
      key: other.key,
    });

    await check('DELETE', `/products/${product.id}`);
    await check('PATCH', `/products/${product.id}`, { body: { description: 'gone' } });

    const references = [
      'POST /metrics 403',
      'POST /metrics 404',
      'POST /versions 403',
      'POST /endpointConnections 403',
      'POST /specifications 403',
      'POST /phoneConnections 403',
      'POST /testCases 403',
      'GET /testCases 403',
      'GET /testCases 404',
      'POST /sessions 403',
      'GET /sessions 404',
      'POST /inferenceResults 403',
      'POST /inferenceResults/batch 403',
      'GET /inferenceResults 403',
      'GET /inferenceResults 404',
      'POST /traces 403',
      'POST /traces/batch 403',
      'GET /traces 403',
      'GET /traces 404',
      'POST /evaluations 403',
      'GET /evaluations 403',
      'GET /evaluations 404',
      'POST /runs 403',
      'POST /monitors 403',
    ];
    for (const expected of [
      'GET /products/{id} 403',
      'GET /products/{id} 404',
      'GET /products 400',
      'GET /products 401',
      'POST /versions 409',
      'PUT /models/{name} 403',
      'POST /traces 409',
      ...references,
    ]) {
      expect(seen, expected).toContain(expected);
    }
  });
});
