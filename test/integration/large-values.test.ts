import { localQueue } from '../../infra/local/queues.js';
import { beforeEach, describe, expect, it } from 'vitest';
import { newTenant } from '../support/api.js';
import { connectionBody, createProduct, createVersion, uploadCsv } from '../support/fixtures.js';
import { drainLocalQueue } from '../../infra/local/queue.js';
import { handler as evaluator } from '../../functions/jobs/evaluator.js';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { bucketName, s3 } from '../../shared/storage/s3.js';

// 250,000 characters of any script (the contract's limit): CJK is 3 bytes, emoji 4 bytes of UTF-8.
const CJK = '雨'.repeat(250_000); // 750 KB
const EMOJI = '😀'.repeat(250_000); // 1 MB
const EMOJI_2 = '🌧'.repeat(250_000);
/** `n` characters (code points): a prefix filled up with one emoji (String#padEnd would split surrogate pairs). */
const fill = (prefix: string | number, emoji: string, n: number) =>
  `${prefix}${emoji.repeat(n - [...String(prefix)].length)}`;

async function setup() {
  const t = await newTenant();
  const product = await createProduct(t.api);
  const version = await createVersion(t.api, product.id);
  const session = async (o: Record<string, unknown> = {}) => {
    const res = await t.api.post('/sessions', { versionId: version.id, ...o });
    expect(res.status).toBe(201);
    return res.body as { id: string };
  };
  return { ...t, product, version, session };
}

async function objectsUnder(prefix: string): Promise<string[]> {
  const out = await s3().send(new ListObjectsV2Command({ Bucket: bucketName, Prefix: prefix }));
  return (out.Contents ?? []).map((o) => o.Key!);
}

describe('large turns', () => {
  it('round-trips 250,000 CJK characters of input and 250,000 emoji of output through POST, GET, list and PATCH', async () => {
    const t = await setup();
    const s = await t.session();
    const created = await t.api.post('/inferenceResults', {
      sessionId: s.id,
      input: CJK,
      output: EMOJI,
      retrievalContext: ['ctx'],
    });
    expect(created.status).toBe(201);
    expect(created.body.input).toBe(CJK);
    expect(created.body.output).toBe(EMOJI);
    const id = created.body.id as string;
    // stored in S3 under the organization's prefix, by kind, id and field
    expect((await objectsUnder(`orgs/${t.org.id}/inferenceResults/${id}/`)).sort()).toEqual([
      `orgs/${t.org.id}/inferenceResults/${id}/input.json`,
      `orgs/${t.org.id}/inferenceResults/${id}/output.json`,
    ]);

    const read = await t.api.get(`/inferenceResults/${id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
    const small = await t.api.post('/inferenceResults', { sessionId: s.id, input: 'small', output: 'ok' });
    const list = await t.api.get('/inferenceResults', { sessionIds: s.id });
    expect(list.body.map((x: { input: string; output: string }) => [x.input.length, x.output.length])).toEqual([
      [250_000, 500_000], // emoji are two UTF-16 units each
      [5, 2],
    ]);
    expect(list.body[0]).toEqual(created.body);
    expect(list.body[1]).toEqual(small.body);

    const patched = await t.api.patch(`/inferenceResults/${id}`, { output: EMOJI_2, latencyMs: 12 });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ input: CJK, output: EMOJI_2, latencyMs: 12 });
    const again = await t.api.get(`/inferenceResults/${id}`);
    expect(again.body).toEqual(patched.body);
    // the input object is kept (unchanged); the superseded output object is gone
    const objects = await objectsUnder(`orgs/${t.org.id}/inferenceResults/${id}/`);
    expect(objects).toHaveLength(2);
    expect(objects).toContain(`orgs/${t.org.id}/inferenceResults/${id}/input.json`);
    expect(objects).not.toContain(`orgs/${t.org.id}/inferenceResults/${id}/output.json`);

    // a small value back in the item: no object left behind
    const shrunk = await t.api.patch(`/inferenceResults/${id}`, { output: 'short' });
    expect(shrunk.body).toMatchObject({ input: CJK, output: 'short' });
    expect((await t.api.get(`/inferenceResults/${id}`)).body.output).toBe('short');
    expect(await objectsUnder(`orgs/${t.org.id}/inferenceResults/${id}/`)).toEqual([
      `orgs/${t.org.id}/inferenceResults/${id}/input.json`,
    ]);
  });

  it('stores a batch of large turns in one transaction', async () => {
    const t = await setup();
    const s = await t.session();
    const messages = [
      { role: 'user', content: CJK },
      { role: 'assistant', content: EMOJI },
      { role: 'user', content: EMOJI_2 },
      { role: 'assistant', content: CJK, retrievalContext: [CJK] },
    ];
    const res = await t.api.post('/inferenceResults/batch', { sessionId: s.id, messages });
    expect(res.status).toBe(201);
    expect(res.body.map((x: { index: number }) => x.index)).toEqual([1, 2]);
    const list = (await t.api.get('/inferenceResults', { sessionIds: s.id })).body;
    expect(list[0]).toMatchObject({ input: CJK, output: EMOJI });
    expect(list[1]).toMatchObject({ input: EMOJI_2, output: CJK, retrievalContext: [CJK] });
    expect((await t.api.get(`/inferenceResults/${res.body[1].id}`)).body).toEqual(list[1]);
  });

  it('keeps a batch of 100 medium turns (6 MB in all) within the 4 MB transaction', async () => {
    const t = await setup();
    const s = await t.session();
    // each turn ~60 KB: under an item's 350 KB, but 100 of them pass a transaction's 4 MB
    const messages = Array.from({ length: 100 }, (_, i) => [
      { role: 'user', content: `${i}:${'q'.repeat(30_000)}` },
      { role: 'assistant', content: `${i}:${'a'.repeat(30_000)}` },
    ]).flat();
    const res = await t.api.post('/inferenceResults/batch', { sessionId: s.id, messages });
    expect(res.status).toBe(201);
    expect(res.body).toHaveLength(100);
    const list = (await t.api.get('/inferenceResults', { sessionIds: s.id, limit: 1000 })).body as {
      input: string;
      output: string;
    }[];
    expect(list).toHaveLength(100);
    list.forEach((turn, i) => {
      expect(turn.input).toBe(messages[2 * i]!.content);
      expect(turn.output).toBe(messages[2 * i + 1]!.content);
    });
    const page = (await t.api.get('/inferenceResults', { sessionIds: s.id, limit: 2, offset: 50 })).body as {
      input: string;
    }[];
    expect(page.map((x) => x.input)).toEqual([messages[100]!.content, messages[102]!.content]);
  });
});

describe('large spans', () => {
  it('keeps a batch of 100 spans (6 MB in all) within the 4 MB transaction, each read back whole', async () => {
    const t = await setup();
    const s = await t.session();
    const turn = (await t.api.post('/inferenceResults', { sessionId: s.id, input: 'q', output: 'a' })).body as {
      id: string;
    };
    const spans = Array.from({ length: 100 }, (_, i) => ({
      id: `trace_large_${i}`,
      inferenceResultId: turn.id,
      name: `step ${i}`,
      type: 'TOOL',
      description: `${i}:${'🧾'.repeat(15_000)}`, // 60 KB: under a span's 64 KB alone
      startTime: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
    }));
    const res = await t.api.post('/traces/batch', { spans });
    expect(res.status).toBe(201);
    const list = (await t.api.get('/traces', { sessionIds: s.id, limit: 1000 })).body as {
      id: string;
      description: string;
    }[];
    expect(list.map((x) => [x.id, x.description])).toEqual(spans.map((x) => [x.id, x.description]));
    // a duplicate id is a 409 and leaves the stored span's objects as they were
    const dup = await t.api.post('/traces', { ...spans[0], description: '🧨'.repeat(100_000) });
    expect(dup.status).toBe(409);
    expect((await t.api.get('/traces/trace_large_0')).body.description).toBe(spans[0]!.description);
  });
});

describe('large values seen whole by the evaluator', () => {
  beforeEach(() => {
    localQueue.messages.length = 0;
  });

  it('scores deterministic metrics on a 250,000-character output against a 250,000-character expected output', async () => {
    const t = await setup();
    // A JSON answer of 250,000 characters: json_field_match and is_json only score 1 on the whole text.
    const answer = JSON.stringify({ answer: '雨'.repeat(249_980) });
    expect(answer.length).toBeLessThanOrEqual(250_000);
    const test = (await t.api.post('/tests', { productId: t.product.id, name: 'big', type: 'QUALITY' })).body;
    const tc = await t.api.post('/testCases', { testId: test.id, input: EMOJI, expectedOutput: answer });
    expect(tc.status).toBe(201);
    const s = await t.session({ testCaseId: tc.body.id });
    await t.api.post('/inferenceResults', { sessionId: s.id, input: CJK, output: answer });
    const evals = (
      await t.api.post('/evaluations', {
        sessionId: s.id,
        metricIds: ['met_json_field_match', 'met_is_json', 'met_non_empty_output'],
      })
    ).body as { id: string; metricId: string }[];
    expect(evals).toHaveLength(3);
    await drainLocalQueue((e) => evaluator(e) as Promise<unknown>);
    for (const e of evals) {
      expect((await t.api.get(`/evaluations/${e.id}`)).body, e.metricId).toMatchObject({ status: 'SUCCESS', score: 1 });
    }
  });
});

describe('large test cases', () => {
  it('round-trips a case at every schema maximum through create, get and list', async () => {
    const t = await setup();
    const test = (await t.api.post('/tests', { productId: t.product.id, name: 'big', type: 'QUALITY' })).body;
    const body = {
      testId: test.id,
      input: EMOJI,
      expectedOutput: CJK,
      context: EMOJI_2,
      expectedTools: Array.from({ length: 100 }, (_, i) => fill(i, '🔧', 200)),
      variant: '🅰'.repeat(200),
      strategy: '🅱'.repeat(200),
      goal: '🎯'.repeat(10_000),
      userPersona: '🧑'.repeat(10_000),
      scenario: '🎬'.repeat(10_000),
      stoppingCriterias: Array.from({ length: 50 }, (_, i) => fill(i, '🛑', 2000)),
      maxIterations: 100,
    };
    const created = await t.api.post('/testCases', body);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ ...body, testId: test.id });
    const read = await t.api.get(`/testCases/${created.body.id}`);
    expect(read.body).toEqual(created.body);
    const second = await t.api.post('/testCases', {
      testId: test.id,
      input: { messages: [{ role: 'user', content: 'x'.repeat(60_000) }] },
      expectedOutput: 'y',
    });
    expect(second.status).toBe(201);
    const list = await t.api.get('/testCases', { testIds: test.id });
    expect(list.body).toEqual([created.body, second.body]);
    expect((await t.api.get('/testCases', { testIds: test.id, offset: 1 })).body).toEqual([second.body]);
  });

  it('imports a CSV of large rows and refuses a cell beyond its limit, naming the line', async () => {
    const t = await setup();
    const csvCell = (s: string) => `"${s.replace(/"/g, '""')}"`;
    const rows = [
      [CJK, EMOJI],
      [EMOJI_2, 'short, "quoted" answer'],
      ['plain question', CJK],
    ];
    const uri = await uploadCsv(
      t.api,
      `input,expected_output\n${rows.map((r) => r.map(csvCell).join(',')).join('\n')}\n`,
    );
    const res = await t.api.post('/tests', { productId: t.product.id, name: 'csv', type: 'QUALITY', uri });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'SUCCESS', testCaseCount: 3 });
    const cases = (await t.api.get('/testCases', { testIds: res.body.id })).body as {
      input: string;
      expectedOutput: string;
    }[];
    expect(cases.map((c) => [c.input, c.expectedOutput])).toEqual(rows);

    const tooLong = await uploadCsv(t.api, `input,expected_output\nq,a\n${csvCell(`${CJK}x`)},a\n`);
    const refused = await t.api.post('/tests', { productId: t.product.id, name: 'csv', type: 'QUALITY', uri: tooLong });
    expect(refused.body).toMatchObject({
      status: 'FAILED',
      error: 'line 3: input must have at most 250000 characters',
    });
  });
});

describe('catalog records at their schema maxima', () => {
  const statements = (emoji: string, n: number) => Array.from({ length: n }, () => emoji.repeat(2000)); // 8 KB each

  it('products: 201 at the maxima, 400 naming the field just beyond', async () => {
    const t = await newTenant();
    const body = {
      name: '📦'.repeat(200),
      description: '📝'.repeat(10_000),
      capabilities: statements('🟢', 7),
      inabilities: statements('🔴', 7),
      securityBoundaries: statements('🔒', 7),
      policies: statements('📜', 7),
    };
    const res = await t.api.post('/products', body);
    expect(res.status).toBe(201);
    expect((await t.api.get(`/products/${res.body.id}`)).body).toMatchObject(body);
    expect((await t.api.patch(`/products/${res.body.id}`, { policies: statements('📃', 7) })).status).toBe(200);
    const beyond = await t.api.post('/products', { ...body, policies: statements('📜', 9) });
    expect(beyond.body).toEqual({ error: 'Bad Request', message: 'policies must be at most 65536 bytes as JSON' });
    // the character limits stay: 100 short statements are fine
    expect(
      (await t.api.post('/products', { name: 'p', capabilities: Array.from({ length: 100 }, (_, i) => `can ${i}`) }))
        .status,
    ).toBe(201);
  });

  it('versions: a 100,000-character system prompt, 256 KB of UTF-8 at most', async () => {
    const t = await newTenant();
    const product = await createProduct(t.api);
    const base = {
      productId: product.id,
      name: '🏷'.repeat(200),
      description: '📝'.repeat(10_000),
      modelId: '🤖'.repeat(200),
    };
    expect((await t.api.post('/versions', { ...base, systemPrompt: 'p'.repeat(100_000) })).status).toBe(201);
    const emoji = await t.api.post('/versions', { ...base, name: 'v2', systemPrompt: '💬'.repeat(65_536) });
    expect(emoji.status).toBe(201);
    expect((await t.api.get(`/versions/${emoji.body.id}`)).body.systemPrompt).toBe('💬'.repeat(65_536));
    expect(
      (await t.api.post('/versions', { ...base, name: 'v3', systemPrompt: '💬'.repeat(65_537) })).body.message,
    ).toBe('systemPrompt must be at most 262144 bytes of UTF-8');
    expect((await t.api.patch(`/versions/${emoji.body.id}`, { systemPrompt: '💬'.repeat(65_537) })).body.message).toBe(
      'systemPrompt must be at most 262144 bytes of UTF-8',
    );
  });

  it('endpoint connections: template, headers, output mapping and input schema at their byte budgets', async () => {
    const t = await newTenant();
    const product = await createProduct(t.api);
    const template = `{"message": "{{ input.user_message }}", "pad": "${'🧩'.repeat(25_000)}"}`; // ~100 KB
    const headers = Object.fromEntries(Array.from({ length: 3 }, (_, i) => [`X-Big-${i}`, 'h'.repeat(8192)])); // ~24.6 KB
    const outputMapping = {
      output: '$.reply',
      ...Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`k${i}`.padEnd(200, 'k'), `$.${'a'.repeat(998)}`])),
    }; // ~30 KB
    const inputSchema = {
      type: 'object',
      properties: Object.fromEntries(
        Array.from({ length: 60 }, (_, i) => [`p${i}`, { type: 'string', description: 'd'.repeat(1000) }]),
      ),
    }; // ~62 KB
    const body = connectionBody(product.id, {
      name: '🔌'.repeat(200),
      url: `https://agent.example.com/${'u'.repeat(2000)}`,
      authType: 'BEARER',
      authToken: 't'.repeat(4096),
      inputTemplate: template,
      headers,
      outputMapping,
      inputSchema,
    });
    const res = await t.api.post('/endpointConnections', body);
    expect(res.status).toBe(201);
    expect((await t.api.get(`/endpointConnections/${res.body.id}`)).body).toMatchObject({
      inputTemplate: template,
      headers,
      outputMapping,
      inputSchema,
    });
    const beyond = async (o: Record<string, unknown>) =>
      (await t.api.post('/endpointConnections', { ...body, ...o })).body.message;
    expect(await beyond({ inputTemplate: `${template}${'🧩'.repeat(700)}` })).toBe(
      'inputTemplate must be at most 102400 bytes of UTF-8',
    );
    expect(await beyond({ headers: { ...headers, 'X-Big-3': 'h'.repeat(8192) } })).toBe(
      'headers must be at most 32768 bytes as JSON',
    );
    expect(
      await beyond({
        outputMapping: {
          ...outputMapping,
          ...Object.fromEntries(
            Array.from({ length: 5 }, (_, i) => [`z${i}`.padEnd(200, 'z'), `$.${'b'.repeat(998)}`]),
          ),
        },
      }),
    ).toBe('outputMapping must be at most 32768 bytes as JSON');
    expect(await beyond({ inputSchema: { ...inputSchema, description: 'd'.repeat(5000) } })).toBe(
      'inputSchema must be at most 65536 bytes as JSON',
    );
    expect(await beyond({ headers: { ['X'.repeat(257)]: 'v' } })).toMatch(
      /^headers key 'X+…' must have at most 256 characters$/,
    );
    expect(
      (await t.api.patch(`/endpointConnections/${res.body.id}`, { inputTemplate: `${template}${'🧩'.repeat(700)}` }))
        .body.message,
    ).toBe('inputTemplate must be at most 102400 bytes of UTF-8');
  });

  it('metrics, specifications, monitors, phone connections, tests and sessions at their maxima', async () => {
    const t = await newTenant();
    const product = await createProduct(t.api);
    const version = await createVersion(t.api, product.id);
    const metric = await t.api.post('/metrics', {
      name: '📏'.repeat(200),
      source: 'PARTIAL_PROMPT',
      evaluationParams: ['input', 'actual_output'],
      judgePrompt: '🧮'.repeat(50_000),
      evaluatorModelName: 'gpt-4o',
      tags: Array.from({ length: 50 }, (_, i) => fill(i, '🏷', 100)),
      description: '📝'.repeat(10_000),
      userGroupIds: Array.from({ length: 100 }, (_, i) => `grp_${i}`.padEnd(64, 'g')),
    });
    expect(metric.status).toBe(201);
    expect((await t.api.get(`/metrics/${metric.body.id}`)).body.judgePrompt).toBe('🧮'.repeat(50_000));

    const spec = await t.api.post('/specifications', {
      productId: product.id,
      description: '📝'.repeat(10_000),
      type: 'CAPABILITY',
    });
    expect(spec.status).toBe(201);

    const monitor = await t.api.post('/monitors', {
      productId: product.id,
      name: '👀'.repeat(200),
      metricGroupIds: [metric.body.metricGroupId],
      samplingPercentage: 50,
      filterQuery: '🔍'.repeat(500),
      filterTarget: 'EITHER',
      excludeQuery: '🚫'.repeat(500),
      excludeTarget: 'INPUT',
    });
    expect(monitor.status).toBe(201);

    expect(
      (
        await t.api.post('/phoneConnections', {
          productId: product.id,
          name: '📞'.repeat(200),
          phoneNumber: '+141555501234567',
        })
      ).status,
    ).toBe(201);

    const metadata = Object.fromEntries(Array.from({ length: 15 }, (_, i) => [`k${i}`, '🗂'.repeat(1000)])); // ~60 KB
    const list = (tag: string) => Array.from({ length: 20 }, (_, i) => fill(i, tag, 200));
    const test = await t.api.post('/tests', {
      productId: product.id,
      name: '🧪'.repeat(200),
      type: 'QUALITY',
      models: list('🤖'),
      fewShot: '📚'.repeat(16_384),
      variants: ['other'],
      customUserPersona: '🧑'.repeat(5000),
      metadata,
    });
    expect(test.status).toBe(201);
    expect((await t.api.get(`/tests/${test.body.id}`)).body.fewShot).toBe('📚'.repeat(16_384));
    expect(
      (await t.api.post('/tests', { productId: product.id, name: 't', type: 'QUALITY', fewShot: 'f'.repeat(50_000) }))
        .status,
    ).toBe(201);
    expect(
      (await t.api.post('/tests', { productId: product.id, name: 't', type: 'QUALITY', fewShot: '📚'.repeat(16_385) }))
        .body.message,
    ).toBe('fewShot must be at most 65536 bytes of UTF-8');

    const session = await t.api.post('/sessions', {
      versionId: version.id,
      context: '🧵'.repeat(32_768),
      metadata,
      customId: '🆔'.repeat(200),
    });
    expect(session.status).toBe(201);
    const patched = await t.api.patch(`/sessions/${session.body.id}`, {
      status: 'FAILED',
      error: '💥'.repeat(10_000),
      stoppingReason: '🛑'.repeat(1000),
    });
    expect(patched.status).toBe(200);
    expect((await t.api.post('/sessions', { versionId: version.id, context: 'c'.repeat(100_000) })).status).toBe(201);
    expect((await t.api.post('/sessions', { versionId: version.id, context: '🧵'.repeat(32_769) })).body.message).toBe(
      'context must be at most 131072 bytes of UTF-8',
    );
  });
});
