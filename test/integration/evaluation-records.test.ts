import { localQueue } from '../../infra/local/queues.js';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { newTenant } from '../support/api.js';
import { createProduct, createVersion } from '../support/fixtures.js';
import { doc, tableName } from '../../shared/db/client.js';
import { keys } from '../../shared/db/keys.js';
import { drainLocalQueue } from '../../infra/local/queue.js';
import { handler as evaluator } from '../../functions/jobs/evaluator.js';

beforeEach(() => {
  localQueue.messages.length = 0;
});
const drain = () => drainLocalQueue((e) => evaluator(e) as Promise<unknown>);

async function setup() {
  const t = await newTenant();
  const product = await createProduct(t.api);
  const version = await createVersion(t.api, product.id);
  const test = (await t.api.post('/tests', { productId: product.id, name: 'records', type: 'QUALITY' })).body;
  const tc = (
    await t.api.post('/testCases', {
      testId: test.id,
      input: 'total?',
      expectedOutput: '{"total":12,"currency":"EUR"}',
    })
  ).body;
  const session = (await t.api.post('/sessions', { versionId: version.id, testCaseId: tc.id })).body;
  await t.api.post('/inferenceResults', {
    sessionId: session.id,
    input: 'What is my total?',
    output: 'Call us on +1 415-555-0123 and we will tell you.',
  });
  return { ...t, session };
}

describe('evaluation records carry the name of their metric', () => {
  it('on create, get, list, human scoring and after the evaluator, and keep it when the metric is renamed', async () => {
    const t = await setup();
    const human = (
      await t.api.post('/metrics', {
        name: 'helpfulness (human)',
        source: 'HUMAN_EVALUATION',
        evaluationParams: ['input'],
        judgePrompt: 'Rate it.',
      })
    ).body;
    const created = await t.api.post('/evaluations', {
      sessionId: t.session.id,
      metricIds: ['met_no_pii', 'met_non_empty_output', human.id],
    });
    expect(created.status).toBe(201);
    const names = (list: { metricId: string; metricName: string }[]) =>
      Object.fromEntries(list.map((e) => [e.metricId, e.metricName]));
    const expected = {
      met_no_pii: 'no_pii',
      met_non_empty_output: 'non_empty_output',
      [human.id]: 'helpfulness (human)',
    };
    expect(names(created.body)).toEqual(expected);

    await drain();
    const listed = await t.api.get('/evaluations', { sessionIds: t.session.id });
    expect(listed.status).toBe(200);
    expect(names(listed.body)).toEqual(expected);
    const byMetric = Object.fromEntries(
      (listed.body as { metricId: string; id: string }[]).map((e) => [e.metricId, e]),
    );
    expect(byMetric.met_no_pii).toMatchObject({
      status: 'SUCCESS',
      score: 0,
      metricName: 'no_pii',
      reason: 'no_pii: found a phone number in actual_output at character 12 ("+1 •••-•••-••23")',
    });
    expect(byMetric.met_non_empty_output).toMatchObject({
      status: 'SUCCESS',
      score: 1,
      reason: 'non_empty_output: actual_output has 48 characters',
    });

    // a rename of the metric later does not rewrite history
    expect((await t.api.patch(`/metrics/${human.id}`, { name: 'helpfulness v2' })).status).toBe(200);
    const humanEval = byMetric[human.id]!.id;
    expect((await t.api.get(`/evaluations/${humanEval}`)).body).toMatchObject({
      metricId: human.id,
      metricName: 'helpfulness (human)',
    });
    expect((await t.api.patch(`/evaluations/${humanEval}`, { humanScore: 0.8 })).body).toMatchObject({
      status: 'SUCCESS',
      metricName: 'helpfulness (human)',
    });
  });

  it('on a retried evaluation', async () => {
    const t = await setup();
    const [e] = (await t.api.post('/evaluations', { sessionId: t.session.id, metricIds: ['met_json_field_match'] }))
      .body as { id: string }[];
    await drain();
    const failed = (await t.api.get(`/evaluations/${e!.id}`)).body;
    expect(failed).toMatchObject({
      status: 'FAILED',
      metricName: 'json_field_match',
      error: 'actual_output is not valid JSON: unexpected "C" at character 1 (expected a JSON value)',
    });
    const retried = await t.api.post(`/evaluations/${e!.id}/retry`);
    expect(retried.status).toBe(200);
    expect(retried.body).toMatchObject({ status: 'PENDING', metricName: 'json_field_match' });
  });

  it('derives the name on read for a record written before records carried it', async () => {
    const t = await setup();
    const [e] = (await t.api.post('/evaluations', { sessionId: t.session.id, metricIds: ['met_is_json'] })).body as {
      id: string;
    }[];
    const key = keys.evaluation(t.session.id, e!.id);
    const { Item } = await doc.send(new GetCommand({ TableName: tableName, Key: key }));
    const { metricName, ...older } = Item!;
    expect(metricName).toBe('is_json');
    await doc.send(new PutCommand({ TableName: tableName, Item: older }));
    expect((await t.api.get(`/evaluations/${e!.id}`)).body).toMatchObject({ id: e!.id, metricName: 'is_json' });
    expect((await t.api.get('/evaluations', { sessionIds: t.session.id })).body).toEqual([
      expect.objectContaining({ id: e!.id, metricName: 'is_json' }),
    ]);
  });
});
