import { describe, expect, it, inject } from 'vitest';

const base = inject('serverUrl');
const key = inject('demoApiKey');

async function http(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}

describe('local server over HTTP', () => {
  it('serves the demo organization with the printed key', async () => {
    const res = await http('GET', '/organization');
    expect(res.status).toBe(200);
    // Seeded with 1,000 monthly credits; other e2e files on this server may set them (the sample
    // event of PATCH /organization does), in whatever order the files run.
    expect(res.body).toMatchObject({ id: 'org_demo', plan: 'ENTERPRISE' });
    expect(res.body.monthlyCredits).toBeGreaterThan(0);
  });

  it('answers 401 as the gateway would, without and with a bad key', async () => {
    const none = await fetch(`${base}/organization`);
    expect(none.status).toBe(401);
    expect(await none.json()).toEqual({ error: 'Unauthorized', message: 'missing or invalid API key' });
    expect((await http('GET', '/organization', undefined, { authorization: 'Bearer evk_nope' })).status).toBe(401);
  });

  it('runs a product → connection → version → phone connection flow', async () => {
    const product = await http('POST', '/products', { name: 'e2e bot' });
    expect(product.status).toBe(201);
    const conn = await http('POST', '/endpointConnections', {
      productId: product.body.id,
      name: 'chat',
      url: 'http://127.0.0.1:9/chat',
      inputTemplate: '{"m": "{{ input.user_message }}"}',
      outputMapping: { output: '$.reply' },
      type: 'CONVERSATION',
    });
    expect(conn.status).toBe(201);
    const version = await http('POST', '/versions', {
      productId: product.body.id,
      name: 'v1',
      conversationEndpointConnectionId: conn.body.id,
    });
    expect(version.status).toBe(201);
    const phone = await http('POST', '/phoneConnections', {
      productId: product.body.id,
      name: 'line',
      phoneNumber: '+14155550123',
    });
    expect(phone.status).toBe(201);
    const list = await http('GET', `/phoneConnections?productIds=${product.body.id}`);
    expect(list.headers.get('x-total-count')).toBe('1');
    const del = await http('DELETE', '/phoneConnections/batch', { ids: [phone.body.id] });
    expect(del.status).toBe(200);
  });

  it('answers malformed JSON with 400 and a non-JSON body with 415', async () => {
    const bad = await fetch(`${base}/products`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: '{"name":',
    });
    expect(bad.status).toBe(400);
    const text = await fetch(`${base}/products`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'text/plain' },
      body: 'name',
    });
    expect(text.status).toBe(415);
    expect(await text.json()).toMatchObject({ error: 'Unsupported Media Type' });
  });

  it('reports build info with every downstream service reachable in process', async () => {
    const res = await http('GET', '/build-info/services');
    expect(res.status).toBe(200);
    expect(res.body.services.map((s: { name: string; status: string }) => `${s.name}:${s.status}`)).toEqual([
      'evaluator:ok',
      'scanner:ok',
      'aggregator:ok',
      'runner:ok',
      'generator:ok',
    ]);
  });
});

describe('storage and uploaded tests over HTTP', () => {
  it('uploads a CSV with the presigned URL using plain fetch, downloads it through the resolved URL, and imports it', async () => {
    const presigned = await http('GET', '/storage/generate-put-presigned-url?fileName=cases.csv&contentType=text/csv');
    expect(presigned.status).toBe(200);
    const csv = 'input,expected_output\nWhat is 2+2?,4\n';
    const put = await fetch(presigned.body.url, { method: 'PUT', body: csv, headers: { 'content-type': 'text/csv' } });
    expect(put.status).toBe(200);
    const resolved = await http('GET', `/storage?uri=${encodeURIComponent(presigned.body.uri)}`);
    expect(resolved.status).toBe(200);
    expect(await (await fetch(resolved.body.url)).text()).toBe(csv);
    const product = await http('POST', '/products', { name: 'uploads' });
    const test = await http('POST', '/tests', {
      productId: product.body.id,
      name: 'uploaded',
      type: 'QUALITY',
      uri: presigned.body.uri,
    });
    expect(test.body).toMatchObject({ status: 'SUCCESS', testCaseCount: 1 });
  });
});

describe('evaluations scored by the local queue', () => {
  it('scores json_field_match, tool_correctness and is_json a moment after they are requested', async () => {
    const product = (await http('POST', '/products', { name: 'evaluated bot' })).body;
    const version = (await http('POST', '/versions', { productId: product.id, name: 'v1' })).body;
    const test = (await http('POST', '/tests', { productId: product.id, name: 'orders', type: 'QUALITY' })).body;
    const tc = (
      await http('POST', '/testCases', {
        testId: test.id,
        input: 'Where is order 42?',
        expectedOutput: '{"status":"shipped","eta":2}',
        expectedTools: ['search_orders'],
      })
    ).body;
    const session = (await http('POST', '/sessions', { versionId: version.id, testCaseId: tc.id })).body;
    const turn = (
      await http('POST', '/inferenceResults', {
        sessionId: session.id,
        input: 'Where is order 42?',
        output: '{"status":"shipped","eta":2}',
      })
    ).body;
    expect(
      (
        await http('POST', '/traces', {
          inferenceResultId: turn.id,
          name: 'search_orders',
          type: 'TOOL',
          inputData: { id: 42 },
        })
      ).status,
    ).toBe(201);
    const created = await http('POST', '/evaluations', {
      sessionId: session.id,
      metricIds: ['met_json_field_match', 'met_tool_correctness', 'met_is_json'],
    });
    expect(created.status).toBe(201);
    const deadline = Date.now() + 15_000;
    let evaluations: { status: string; score: number; metricId: string }[] = [];
    while (Date.now() < deadline) {
      evaluations = (await http('GET', `/evaluations?sessionIds=${session.id}`)).body;
      if (evaluations.every((e) => e.status !== 'PENDING')) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(Object.fromEntries(evaluations.map((e) => [e.metricId, [e.status, e.score]]))).toEqual({
      met_json_field_match: ['SUCCESS', 1],
      met_tool_correctness: ['SUCCESS', 1],
      met_is_json: ['SUCCESS', 1],
    });
  });
});
