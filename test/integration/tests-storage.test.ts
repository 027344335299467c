import { describe, expect, it } from 'vitest';
import { newTenant, type Client } from '../support/api.js';
import { createProduct } from '../support/fixtures.js';

async function upload(api: Client, text: string, fileName = 'cases.csv'): Promise<string> {
  const res = await api.get('/storage/generate-put-presigned-url', { fileName, contentType: 'text/csv' });
  expect(res.status).toBe(200);
  const put = await fetch(res.body.url, { method: 'PUT', body: text, headers: { 'content-type': 'text/csv' } });
  expect(put.status).toBe(200);
  return res.body.uri;
}

async function setup() {
  const t = await newTenant();
  const product = await createProduct(t.api);
  return {
    ...t,
    product,
    test: (o: Record<string, unknown>) => t.api.post('/tests', { productId: product.id, name: 'set', ...o }),
  };
}

describe('storage', () => {
  it('presigns an upload under the organization prefix and resolves it to a playable URL', async () => {
    const t = await newTenant();
    const res = await t.api.get('/storage/generate-put-presigned-url', {
      fileName: 'call recording.wav',
      contentType: 'audio/wav',
    });
    expect(res.body.uri).toMatch(new RegExp(`^s3://[^/]+/orgs/${t.org.id}/uploads/[0-9A-Z]{26}/call_recording\\.wav$`));
    expect(
      (await fetch(res.body.url, { method: 'PUT', body: 'RIFF....', headers: { 'content-type': 'audio/wav' } })).status,
    ).toBe(200);
    const resolved = await t.api.get('/storage', { uri: res.body.uri });
    expect(resolved.status).toBe(200);
    expect(await (await fetch(resolved.body.url)).text()).toBe('RIFF....');
    // a presigned URL given back is canonicalised to the same object
    const again = await t.api.get('/storage', { uri: res.body.url });
    expect(again.body.uri).toBe(res.body.uri);
  });

  it('validates upload parameters', async () => {
    const t = await newTenant();
    expect(
      (
        await t.api.get('/storage/generate-put-presigned-url', {
          fileName: 'x.exe',
          contentType: 'application/x-msdownload',
        })
      ).body.message,
    ).toMatch(/^contentType must be one of/);
    expect(
      (await t.api.get('/storage/generate-put-presigned-url', { fileName: '../x.csv', contentType: 'text/csv' })).body
        .message,
    ).toBe('fileName must not contain path separators');
    expect((await t.api.get('/storage/generate-put-presigned-url', { contentType: 'text/csv' })).body.message).toBe(
      'fileName is required',
    );
  });

  it("refuses another organization's prefix (403), another bucket (400), a missing object (404)", async () => {
    const t = await newTenant();
    const other = await newTenant();
    const theirs = await upload(other.api, 'input\nx\n');
    expect((await t.api.get('/storage', { uri: theirs })).status).toBe(403);
    expect((await t.api.get('/storage', { uri: 's3://someone-elses-bucket/orgs/x/file.csv' })).status).toBe(400);
    const bucket = theirs.split('/')[2];
    expect((await t.api.get('/storage', { uri: `s3://${bucket}/orgs/${t.org.id}/uploads/none.csv` })).status).toBe(404);
    expect((await t.api.get('/storage', { uri: 'https://example.com/x' })).status).toBe(400);
  });
});

describe('tests (datasets)', () => {
  it('creates a generated test: PENDING, defaults, canonical language tag, derived isExtendable', async () => {
    const t = await setup();
    const res = await t.test({ type: 'RED_TEAMING', variants: ['misuse'], languageCode: 'pt-br' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      status: 'PENDING',
      strategies: ['original'],
      languageCode: 'pt-BR',
      isExtendable: true,
      uri: null,
      testCaseCount: 0,
    });
    const q = await t.test({
      type: 'QUALITY',
      groundTruthUri: 'https://docs.s3.eu-west-1.amazonaws.com/handbook.pdf?X-Amz-Signature=x',
    });
    expect(q.body).toMatchObject({ isExtendable: true, groundTruthUri: 's3://docs/handbook.pdf' });
    expect((await t.test({ type: 'QUALITY' })).body.isExtendable).toBe(false);
  });

  it.each([
    [{ type: 'QUALITY', variants: ['toxicity'] }, /^variants\[0\] must be one of: rag/],
    [{ type: 'SCENARIOS', strategies: [] }, 'strategies must have at least 1 item for SCENARIOS tests'],
    [
      { type: 'RED_TEAMING', variants: ['custom'] },
      'customVariantDescription is required when variants contain custom',
    ],
    [{ type: 'QUALITY', languageCode: 'not a tag' }, /valid BCP-47/],
    [{ type: 'QUALITY', backgroundNoiseLevel: 'heavy' }, /set together/],
    [{ type: 'QUALITY', dataCatalogUri: 's3://b/catalog.json' }, 'dataCatalogUri is only for SCENARIOS tests'],
    [{ type: 'QUALITY', groundTruthUri: 'ftp://x/y' }, /^groundTruthUri must be an s3:\/\/ URI/],
    [{ type: 'TRIVIA' }, /^type must be one of/],
    [{}, /^type is required/],
    [{ type: 'QUALITY', status: 'SUCCESS' }, "unknown field 'status'"],
    [{ type: 'QUALITY', isExtendable: true }, "unknown field 'isExtendable'"],
    [{ type: 'QUALITY', maxTestCases: 0 }, 'maxTestCases must be at least 1'],
  ])('rejects %j', async (body, message) => {
    const t = await setup();
    const res = await t.test(body);
    expect(res.status).toBe(400);
    if (typeof message === 'string') expect(res.body.message).toBe(message);
    else expect(res.body.message).toMatch(message);
  });

  it('takes type and variant from a same-product specification, and checks they agree', async () => {
    const t = await setup();
    const spec = (
      await t.api.post('/specifications', {
        productId: t.product.id,
        description: 'd',
        type: 'POLICY',
        testType: 'RED_TEAMING',
        testVariant: 'toxicity',
      })
    ).body;
    const res = await t.test({ specificationId: spec.id });
    expect(res.body).toMatchObject({ type: 'RED_TEAMING', variants: ['toxicity'], specificationId: spec.id });
    expect((await t.test({ specificationId: spec.id, type: 'QUALITY' })).status).toBe(400);
    const otherProduct = await createProduct(t.api);
    expect(
      (await t.api.post('/tests', { productId: otherProduct.id, name: 'x', specificationId: spec.id })).body.message,
    ).toMatch(/belongs to another product/);
  });

  it('imports an uploaded CSV: SUCCESS with its cases in order', async () => {
    const t = await setup();
    const uri = await upload(t.api, 'input,expected_output\n"Hi, there",Hello\nRefund?,"Within ""30"" days"\n');
    const res = await t.test({ type: 'QUALITY', uri });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'SUCCESS', testCaseCount: 2, isExtendable: false, error: null, uri });
    const cases = await t.api.get('/testCases', { testIds: res.body.id });
    expect(
      cases.body.map((c: { input: string; expectedOutput: string; index: number }) => [
        c.index,
        c.input,
        c.expectedOutput,
      ]),
    ).toEqual([
      [1, 'Hi, there', 'Hello'],
      [2, 'Refund?', 'Within "30" days'],
    ]);
    expect(
      (await t.api.get('/tests', { testCaseIds: cases.body[0].id })).body.map((x: { id: string }) => x.id),
    ).toEqual([res.body.id]);
  });

  it('fails a file with a bad line in the middle, naming it, and writes no case', async () => {
    const t = await setup();
    const rows = Array.from({ length: 50 }, (_, i) => (i === 24 ? 'only-one-field' : `q${i},a${i}`));
    const uri = await upload(t.api, `input,expected_output\n${rows.join('\n')}\n`);
    const res = await t.test({ type: 'QUALITY', uri });
    expect(res.body).toMatchObject({
      status: 'FAILED',
      error: 'line 26: expected 2 fields, found 1',
      testCaseCount: 0,
    });
    expect((await t.api.get('/testCases', { testIds: res.body.id })).body).toEqual([]);
  });

  it('refuses a file whose columns do not fit the type with a 400, creating nothing', async () => {
    const t = await setup();
    const before = (await t.api.get('/tests')).headers['x-total-count'];
    const uri = await upload(t.api, 'input,expected_output\na,b\n');
    const res = await t.test({ type: 'SCENARIOS', strategies: ['written'], uri });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: 'Bad Request',
      message: 'uri: line 1: missing columns goal, user_persona for a SCENARIOS test',
    });
    const wrongHeader = await t.test({ type: 'QUALITY', uri: await upload(t.api, 'question,answer\na,b\n') });
    expect(wrongHeader.status).toBe(400);
    expect(wrongHeader.body.message).toMatch(/^uri: line 1: missing columns input, expected_output for a QUALITY test/);
    expect((await t.api.get('/tests')).headers['x-total-count']).toBe(before);
  });

  it('imports 10,000 rows and refuses 10,001', async () => {
    const t = await setup();
    const body = (n: number) => `input\n${Array.from({ length: n }, (_, i) => `attack ${i}`).join('\n')}\n`;
    const ok = await t.test({ type: 'RED_TEAMING', uri: await upload(t.api, body(10_000)) });
    expect(ok.body).toMatchObject({ status: 'SUCCESS', testCaseCount: 10_000 });
    expect((await t.api.get('/testCases', { testIds: ok.body.id, limit: 1 })).headers['x-total-count']).toBe('10000');
    const tooMany = await t.test({ type: 'RED_TEAMING', uri: await upload(t.api, body(10_001)) });
    expect(tooMany.body).toMatchObject({ status: 'FAILED', error: 'line 10002: the file has more than 10000 rows' });
  }, 120_000);

  it("refuses a file of another organization's prefix (403) and a missing file (400)", async () => {
    const t = await setup();
    const other = await newTenant();
    const theirs = await upload(other.api, 'input\nx\n');
    expect((await t.test({ type: 'RED_TEAMING', uri: theirs })).status).toBe(403);
    const bucket = theirs.split('/')[2];
    expect(
      (await t.test({ type: 'RED_TEAMING', uri: `s3://${bucket}/orgs/${t.org.id}/uploads/none.csv` })).body.message,
    ).toMatch(/^uri names no object/);
  });

  it('patches only name and metadata, soft-deletes, and keeps tests to their organization', async () => {
    const t = await setup();
    const other = await newTenant();
    const test = (await t.test({ type: 'QUALITY' })).body;
    expect((await t.api.patch(`/tests/${test.id}`, { name: 'renamed', metadata: { team: 'qa' } })).body).toMatchObject({
      name: 'renamed',
      metadata: { team: 'qa' },
    });
    expect((await t.api.patch(`/tests/${test.id}`, { type: 'RED_TEAMING' })).body.message).toBe("unknown field 'type'");
    expect((await other.api.get(`/tests/${test.id}`)).status).toBe(403);
    expect((await other.api.patch(`/tests/${test.id}`, { name: 'x' })).status).toBe(403);
    expect((await other.api.get('/testCases', { testIds: test.id })).status).toBe(403);
    expect((await t.api.get('/tests/test_nope')).status).toBe(404);
    expect((await t.api.del(`/tests/${test.id}`)).status).toBe(200);
    expect((await t.api.get('/tests')).body).toEqual([]);
    expect((await t.api.get(`/tests/${test.id}`)).body.deletedAt).toEqual(expect.any(String));
    expect((await t.api.patch(`/tests/${test.id}`, { name: 'x' })).status).toBe(404);
  });

  it('lists with every filter', async () => {
    const t = await setup();
    const p2 = await createProduct(t.api);
    const spec = (
      await t.api.post('/specifications', {
        productId: t.product.id,
        description: 'd',
        type: 'POLICY',
        testType: 'QUALITY',
        testVariant: 'rag',
      })
    ).body;
    const a = (await t.test({ name: 'alpha', type: 'QUALITY', specificationId: spec.id })).body;
    const b = (await t.test({ name: 'beta', type: 'RED_TEAMING' })).body;
    const c = (
      await t.api.post('/tests', { productId: p2.id, name: 'gamma', type: 'SCENARIOS', strategies: ['spoken'] })
    ).body;
    const ids = async (q: Record<string, string | boolean>) =>
      ((await t.api.get('/tests', q)).body as { id: string }[]).map((x) => x.id).sort();
    expect(await ids({ ids: `${a.id},${c.id}` })).toEqual([a.id, c.id].sort());
    expect(await ids({ productIds: p2.id })).toEqual([c.id]);
    expect(await ids({ names: 'beta' })).toEqual([b.id]);
    expect(await ids({ name: 'AMM' })).toEqual([c.id]);
    expect(await ids({ types: 'QUALITY,SCENARIOS' })).toEqual([a.id, c.id].sort());
    expect(await ids({ specificationIds: spec.id })).toEqual([a.id]);
    expect(await ids({ hasLiveSpecification: true })).toEqual([a.id]);
    expect(await ids({ hasLiveSpecification: false })).toEqual([b.id, c.id].sort());
    expect(await ids({ hasEvaluations: false })).toHaveLength(3);
    expect(await ids({ hasEvaluations: true })).toEqual([]);
    expect(await ids({ hasTraces: true })).toEqual([]);
    expect(await ids({ versionIds: 'ver_none' })).toEqual([]);
    expect(await ids({ fromCreatedAt: b.createdAt, toCreatedAt: b.createdAt })).toEqual([b.id]);
    await t.api.del(`/specifications/${spec.id}`);
    expect(await ids({ hasLiveSpecification: true })).toEqual([]);
  });
});

describe('test cases', () => {
  it('creates cases with the rules of the test type, reads, lists and deletes them', async () => {
    const t = await setup();
    const q = (await t.test({ type: 'QUALITY' })).body;
    const s = (await t.test({ type: 'SCENARIOS', strategies: ['written'] })).body;
    const c1 = await t.api.post('/testCases', {
      testId: q.id,
      input: 'hello',
      expectedOutput: 'hi',
      expectedTools: ['search'],
    });
    expect(c1.status).toBe(201);
    expect(c1.body).toMatchObject({
      index: 1,
      testId: q.id,
      input: 'hello',
      expectedTools: ['search'],
      languageCode: 'en',
    });
    const c2 = await t.api.post('/testCases', { testId: q.id, input: { user_message: 'hey', lang: 'de' } });
    expect(c2.body.index).toBe(2);
    expect((await t.api.post('/testCases', { testId: q.id })).body.message).toBe(
      'input is required for a case of a QUALITY test',
    );
    expect((await t.api.post('/testCases', { testId: s.id, goal: 'book' })).body.message).toBe(
      'userPersona is required for a case of a SCENARIOS test',
    );
    expect(
      (await t.api.post('/testCases', { testId: s.id, goal: 'book', userPersona: 'p', maxIterations: 0 })).body.message,
    ).toBe('maxIterations must be at least 1');
    expect((await t.api.post('/testCases', { testId: 'test_nope', input: 'x' })).status).toBe(400);
    expect((await t.api.get(`/testCases/${c1.body.id}`)).body).toEqual(c1.body);
    expect((await t.api.get('/testCases', { testIds: q.id })).body.map((c: { index: number }) => c.index)).toEqual([
      1, 2,
    ]);
    expect((await t.api.get('/testCases', {})).body.message).toBe('testIds is required');
    expect((await t.api.del(`/testCases/${c1.body.id}`)).status).toBe(200);
    expect((await t.api.get('/testCases', { testIds: q.id })).body).toHaveLength(1);
    const other = await newTenant();
    expect((await other.api.get(`/testCases/${c2.body.id}`)).status).toBe(403);
    expect((await other.api.del(`/testCases/${c2.body.id}`)).status).toBe(403);
    expect((await other.api.post('/testCases', { testId: q.id, input: 'x' })).status).toBe(403);
  });
});
