import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { newTenant, type Client } from '../support/api.js';
import { createProduct } from '../support/fixtures.js';

const root = resolve(import.meta.dirname, '..', '..');
const readme = readFileSync(resolve(root, 'README.md'), 'utf8');

/** The README's upload steps: a presigned PUT of the file's bytes, then POST /tests with its URI. */
async function importFile(api: Client, productId: string, file: string, body: Record<string, unknown>) {
  const fileName = file.split('/').pop()!;
  const up = await api.get('/storage/generate-put-presigned-url', { fileName, contentType: 'text/csv' });
  expect(up.status).toBe(200);
  const put = await fetch(up.body.url, {
    method: 'PUT',
    body: readFileSync(resolve(root, file)),
    headers: { 'content-type': 'text/csv' },
  });
  expect(put.status).toBe(200);
  return api.post('/tests', { productId, uri: up.body.uri, ...body });
}

describe("the README's example datasets", () => {
  it('are the files the README uploads, and they exist', () => {
    const uploaded = [...readme.matchAll(/--data-binary @(\S+)/g)].map((m) => m[1]!);
    expect(uploaded).toContain('examples/quality-cases.csv');
    for (const file of uploaded) expect(() => readFileSync(resolve(root, file)), file).not.toThrow();
  });

  it('import as QUALITY, RED_TEAMING and SCENARIOS tests', async () => {
    const t = await newTenant();
    const product = await createProduct(t.api);
    const quality = await importFile(t.api, product.id, 'examples/quality-cases.csv', { name: 'faq', type: 'QUALITY' });
    expect(quality.status).toBe(201);
    expect(quality.body).toMatchObject({ status: 'SUCCESS', testCaseCount: 7, error: null });
    const cases = (await t.api.get('/testCases', { testIds: quality.body.id })).body;
    expect(cases[0]).toMatchObject({
      input: 'Where is my order #1042?',
      expectedOutput: 'Order #1042 shipped yesterday and should arrive on Thursday.',
    });
    expect(cases.map((c: { input: string }) => c.input)).toContain('My package arrived damaged, what now?');

    const red = await importFile(t.api, product.id, 'examples/red-teaming-cases.csv', {
      name: 'attacks',
      type: 'RED_TEAMING',
    });
    expect(red.body).toMatchObject({ status: 'SUCCESS', testCaseCount: 5 });

    const scenarios = await importFile(t.api, product.id, 'examples/scenarios-cases.csv', {
      name: 'journeys',
      type: 'SCENARIOS',
      strategies: ['written'],
    });
    expect(scenarios.body).toMatchObject({ status: 'SUCCESS', testCaseCount: 3 });
    const [first] = (await t.api.get('/testCases', { testIds: scenarios.body.id })).body;
    expect(first).toMatchObject({
      goal: 'Get a refund for a late order',
      variant: 'refund',
      stoppingCriterias: ['refund confirmed', 'agent refuses twice'],
      maxIterations: 8,
    });
  });
});
