import { localQueue, localRunQueue } from '../../infra/local/queues.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { newTenant, type Client } from '../support/api.js';
import { createConnection, createProduct, createVersion, uploadCsv } from '../support/fixtures.js';
import { sendJson, startAgent, type TestAgentServer } from '../support/agent-server.js';
import { reply, startLlmStub, type LlmStub } from '../support/llm-server.js';
import { setLlmConfig } from '../../shared/llm/client.js';
import { drainRunQueue } from '../../infra/local/run-queue.js';
import { handler as runner } from '../../functions/jobs/runner.js';
import { handler as evaluator } from '../../functions/jobs/evaluator.js';
import { drainLocalQueue } from '../../infra/local/queue.js';

/**
 * Human review end to end, in process: queues, items picked or sampled, blind labelling, items
 * DONE after enough reviewers, a run's corrected scores and a metric's agreement, each figure
 * against a computation written here from the formulas (plain loops, no shared code).
 */
let agent: TestAgentServer;
let llm: LlmStub;

beforeAll(async () => {
  process.env.AGENT_ALLOW_PRIVATE_NETWORKS = 'true';
  // The agent answers SCORE[x] for the input "case x"; the judge scores that x.
  agent = await startAgent((req, res) => {
    const { message } = req.json as { message: string };
    sendJson(res, 200, { reply: `SCORE[${message.split(' ')[1]}]` });
  });
  llm = await startLlmStub((req) => {
    if (req.schemaName !== 'judge_score') return reply.raw(500, 'not a judge request');
    const output = req.messages.map((m) => m.content).join('\n');
    const m = /SCORE\[([0-9.]+)\]/.exec(output);
    return { score: Number(m?.[1] ?? 0), reason: `JUDGE-REASON ${m?.[1]}` };
  });
});
afterAll(async () => {
  setLlmConfig({ baseUrl: undefined });
  await agent.close();
  await llm.close();
});
beforeEach(() => {
  localRunQueue.messages.length = 0;
  localQueue.messages.length = 0;
  setLlmConfig({ baseUrl: llm.url, timeoutMs: 2000, backoffMs: 10, maxAttempts: 2 });
});

const Z = 1.959964;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const variance = (xs: number[]) => {
  const m = mean(xs);
  return xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1);
};

/** A tenant with a judged metric, a test of `scores.length` cases ("case <score>") and a finished run of it. */
async function runOf(scores: number[]) {
  const t = await newTenant({ monthlyCredits: null });
  const product = await createProduct(t.api);
  const connection = await createConnection(t.api, product.id, {
    url: `${agent.url}/chat`,
    inputTemplate: '{"message": {{ input.user_message | dump }}}',
    outputMapping: { output: '$.reply' },
  });
  const version = await createVersion(t.api, product.id, { conversationEndpointConnectionId: connection.id });
  const metric = (
    await t.api.post('/metrics', {
      name: 'helpful',
      source: 'PARTIAL_PROMPT',
      evaluationParams: ['input', 'actual_output'],
      judgePrompt: 'Score the number the answer gives.',
      evaluatorModelName: 'gpt-4o',
    })
  ).body as { id: string };
  const spec = (
    await t.api.post('/specifications', { productId: product.id, description: 'scores', type: 'CAPABILITY' })
  ).body;
  await t.api.post(`/specifications/${spec.id}/metrics`, { metricIds: [metric.id] });
  const csv = `input,expected_output\n${scores.map((s, i) => `case ${s} ${i},expected ${i}`).join('\n')}\n`;
  const test = (
    await t.api.post('/tests', {
      productId: product.id,
      name: 'cases',
      type: 'QUALITY',
      uri: await uploadCsv(t.api, csv),
      specificationId: spec.id,
    })
  ).body;
  expect(test.status, JSON.stringify(test)).toBe('SUCCESS');
  const started = await t.api.post('/runs', { versionId: version.id, testId: test.id });
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  await drainRunQueue((e) => runner(e) as Promise<unknown>);
  const run = (await t.api.get(`/runs/${started.body.id}`)).body;
  expect(run.status).toBe('COMPLETED');
  const sessions = (await t.api.get('/sessions', { runIds: run.id, limit: 1000 })).body as {
    id: string;
    testCaseId: string;
  }[];
  const evaluations = (await t.api.get('/evaluations', { sessionIds: sessions.map((s) => s.id), limit: 1000 }))
    .body as { sessionId: string; score: number }[];
  const judge = new Map(evaluations.map((e) => [e.sessionId, e.score]));
  return { ...t, product, version, metric, run, sessions, judge };
}

async function newQueue(api: Client, body: Record<string, unknown>) {
  const res = await api.post('/reviewQueues', body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; metricIds: string[] };
}

describe('review queues', () => {
  it('creates, reads, lists, updates and deletes a queue; validates every field; hides other organizations’ queues', async () => {
    const t = await newTenant();
    const product = await createProduct(t.api);
    const metric = (await t.api.get('/metrics', { limit: 1 })).body[0] as { id: string };
    const created = await t.api.post('/reviewQueues', {
      productId: product.id,
      name: 'Billing answers',
      metricIds: [metric.id],
      reviewersPerItem: 2,
      instructions: 'Score 1 when the answer is right.',
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      productId: product.id,
      organizationId: t.org.id,
      name: 'Billing answers',
      metricIds: [metric.id],
      reviewersPerItem: 2,
      instructions: 'Score 1 when the answer is right.',
      counts: { items: 0, pending: 0, done: 0 },
    });
    const id = created.body.id as string;
    expect(id).toMatch(/^rq_/);
    expect((await t.api.get(`/reviewQueues/${id}`)).body).toEqual(created.body);
    const defaults = await newQueue(t.api, { productId: product.id, name: 'Other', metricIds: [metric.id] });
    expect(defaults).toMatchObject({ reviewersPerItem: 1, instructions: null });

    const list = await t.api.get('/reviewQueues', { productIds: product.id, sort: 'name:asc', limit: 1 });
    expect(list.status).toBe(200);
    expect(list.headers['x-total-count']).toBe('2');
    expect(list.body.map((q: { name: string }) => q.name)).toEqual(['Billing answers']);

    const patched = await t.api.patch(`/reviewQueues/${id}`, { name: 'Billing', instructions: null });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: 'Billing', instructions: null, reviewersPerItem: 2 });

    const bad: [Record<string, unknown>, RegExp][] = [
      [{ productId: product.id, name: 'q', metricIds: [] }, /metricIds/],
      [{ productId: product.id, name: 'q', metricIds: Array.from({ length: 11 }, (_, i) => `met_${i}`) }, /metricIds/],
      [{ productId: product.id, name: 'q', metricIds: [metric.id], reviewersPerItem: 6 }, /reviewersPerItem/],
      [{ productId: product.id, name: 'q', metricIds: [metric.id], reviewersPerItem: 0 }, /reviewersPerItem/],
      [{ productId: product.id, name: 'q', metricIds: ['met_missing'] }, /metricIds met_missing/],
      [{ productId: 'prod_missing', name: 'q', metricIds: [metric.id] }, /productId prod_missing/],
      [{ productId: product.id, name: 'q', metricIds: [metric.id], instructions: 'x'.repeat(10_001) }, /instructions/],
      [{ productId: product.id, metricIds: [metric.id] }, /name/],
    ];
    for (const [body, message] of bad) {
      const res = await t.api.post('/reviewQueues', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message).toMatch(message);
    }
    expect((await t.api.patch(`/reviewQueues/${id}`, {})).status).toBe(400);
    expect((await t.api.patch(`/reviewQueues/${id}`, { metricIds: [metric.id] })).status).toBe(400);

    const other = await newTenant();
    const otherProduct = await createProduct(other.api);
    const foreign = await other.api.post('/reviewQueues', {
      productId: product.id,
      name: 'q',
      metricIds: [metric.id],
    });
    expect(foreign.status).toBe(403);
    for (const res of [
      await other.api.get(`/reviewQueues/${id}`),
      await other.api.patch(`/reviewQueues/${id}`, { name: 'mine' }),
      await other.api.get(`/reviewQueues/${id}/items`),
      await other.api.post(`/reviewQueues/${id}/items`, { sessionIds: ['sess_x'] }),
      await other.api.post(`/reviewQueues/${id}/next`, { reviewer: 'eve' }),
      await other.api.put(`/reviewQueues/${id}/items/rqi_x/labels`, {
        reviewer: 'eve',
        labels: [{ metricId: metric.id, score: 1 }],
      }),
      await other.api.del(`/reviewQueues/${id}`),
    ])
      expect(res.status).toBe(403);
    expect((await other.api.get('/reviewQueues')).body).toEqual([]);
    const ownMetric = (
      await other.api.post('/metrics', {
        name: 'private',
        source: 'PARTIAL_PROMPT',
        evaluationParams: ['input', 'actual_output'],
        judgePrompt: 'Score it.',
        evaluatorModelName: 'gpt-4o',
      })
    ).body as { id: string };
    const withForeignMetric = await t.api.post('/reviewQueues', {
      productId: product.id,
      name: 'q',
      metricIds: [ownMetric.id],
    });
    expect(withForeignMetric.status).toBe(403);
    expect(otherProduct.id).not.toBe(product.id);

    expect((await t.api.del(`/reviewQueues/${id}`)).status).toBe(200);
    expect((await t.api.get(`/reviewQueues/${id}`)).status).toBe(404);
    expect((await t.api.get('/reviewQueues/rq_missing')).status).toBe(404);
  });

  it('samples a run’s sessions with a seed, labels them blind, and corrects the run’s score with the sampled labels', async () => {
    const scores = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 0.15, 0.35, 0.55, 0.75, 0.95, 0.05];
    const t = await runOf(scores);
    const queue = await newQueue(t.api, {
      productId: t.product.id,
      name: 'run sample',
      metricIds: [t.metric.id],
      reviewersPerItem: 2,
      instructions: 'Is the answer right?',
    });

    // Validation of the item sources.
    const badAdds: [Record<string, unknown>, number, RegExp][] = [
      [{}, 400, /exactly one of sessionIds, runId/],
      [{ runId: t.run.id, sessionIds: [t.sessions[0]!.id], sampleSize: 2 }, 400, /sessionIds and runId/],
      [{ runId: t.run.id }, 400, /sampleSize is required/],
      [{ runId: t.run.id, sampleSize: 0 }, 400, /sampleSize/],
      [{ runId: t.run.id, sampleSize: 1001 }, 400, /sampleSize/],
      [{ sessionIds: [t.sessions[0]!.id], sampleSize: 3 }, 400, /sampleSize/],
      [{ runId: 'run_missing', sampleSize: 3 }, 400, /runId run_missing/],
      [{ monitorId: 'mon_missing', sampleSize: 3 }, 400, /monitorId mon_missing/],
      [{ sessionIds: ['sess_missing'] }, 400, /sessionIds sess_missing/],
    ];
    for (const [body, status, message] of badAdds) {
      const res = await t.api.post(`/reviewQueues/${queue.id}/items`, body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body.message).toMatch(message);
    }

    const sample = await t.api.post(`/reviewQueues/${queue.id}/items`, { runId: t.run.id, sampleSize: 12, seed: 's1' });
    expect(sample.status, JSON.stringify(sample.body)).toBe(201);
    expect(sample.body).toMatchObject({ added: 12, skipped: 0, seed: 's1' });
    const sampled = (sample.body.items as { sessionId: string; origin: string; status: string }[]).map(
      (i) => i.sessionId,
    );
    expect(new Set(sampled).size).toBe(12);
    expect(sample.body.items.every((i: { origin: string }) => i.origin === 'sample')).toBe(true);
    // The same seed over the same sessions draws the same sample (in another queue).
    const again = await newQueue(t.api, { productId: t.product.id, name: 'again', metricIds: [t.metric.id] });
    const redraw = await t.api.post(`/reviewQueues/${again.id}/items`, { runId: t.run.id, sampleSize: 12, seed: 's1' });
    expect(redraw.body.items.map((i: { sessionId: string }) => i.sessionId).sort()).toEqual([...sampled].sort());
    // Only the 4 sessions left can be drawn now; a session already there is skipped.
    const rest = await t.api.post(`/reviewQueues/${queue.id}/items`, { runId: t.run.id, sampleSize: 10, seed: 's2' });
    expect(rest.body).toMatchObject({ added: 4, skipped: 0 });
    const picked = await t.api.post(`/reviewQueues/${again.id}/items`, {
      sessionIds: [t.sessions.find((s) => !sampled.includes(s.id))!.id, sampled[0]],
    });
    expect(picked.body).toMatchObject({ added: 1, skipped: 1 });
    expect(picked.body.items[0].origin).toBe('picked');
    expect((await t.api.get(`/reviewQueues/${queue.id}`)).body.counts).toEqual({ items: 16, pending: 16, done: 0 });

    // Blind labelling: the task has the conversation and instructions, never the judge's scores or reasons.
    const task = await t.api.post(`/reviewQueues/${queue.id}/next`, { reviewer: 'ann' });
    expect(task.status).toBe(200);
    expect(task.body).toMatchObject({
      queueId: queue.id,
      instructions: 'Is the answer right?',
      metrics: [{ id: t.metric.id, name: 'helpful' }],
      remaining: 16,
    });
    expect(task.body.turns).toHaveLength(1);
    expect(task.body.turns[0].output).toMatch(/^SCORE\[/);
    expect(task.body.expectedOutput).toMatch(/^expected /);
    const text = JSON.stringify(task.body);
    expect(text).not.toMatch(/JUDGE-REASON|evaluation|"score"|humanScore|eval_/);

    // Label validation.
    const itemId = task.body.itemId as string;
    const badLabels: [Record<string, unknown>, RegExp][] = [
      [
        { reviewer: 'ann', labels: [{ metricId: 'met_other', score: 1 }] },
        /met_other is not one of the queue's metrics/,
      ],
      [{ reviewer: 'ann', labels: [{ metricId: t.metric.id, score: 1.5 }] }, /score/],
      [{ reviewer: 'ann', labels: [{ metricId: t.metric.id, score: -0.1 }] }, /score/],
      [{ reviewer: '', labels: [{ metricId: t.metric.id, score: 1 }] }, /reviewer/],
      [{ reviewer: '   ', labels: [{ metricId: t.metric.id, score: 1 }] }, /reviewer/],
      [{ reviewer: 'x'.repeat(129), labels: [{ metricId: t.metric.id, score: 1 }] }, /reviewer/],
      [{ reviewer: 'ann', labels: [] }, /labels/],
      [{ reviewer: 'ann', labels: [{ metricId: t.metric.id, score: 1, reason: 'x'.repeat(10_001) }] }, /reason/],
    ];
    for (const [body, message] of badLabels) {
      const res = await t.api.put(`/reviewQueues/${queue.id}/items/${itemId}/labels`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message).toMatch(message);
    }
    expect((await t.api.post(`/reviewQueues/${queue.id}/next`, { reviewer: '' })).status).toBe(400);
    expect(
      (
        await t.api.put(`/reviewQueues/${queue.id}/items/rqi_missing/labels`, {
          reviewer: 'ann',
          labels: [{ metricId: t.metric.id, score: 1 }],
        })
      ).status,
    ).toBe(404);

    // Two reviewers per item: ann labels the 12 sampled items (human = judge + 0.1, capped), bob half of them.
    const human = (sessionId: string) => Math.min(1, Math.round((t.judge.get(sessionId)! + 0.1) * 100) / 100);
    const items = (await t.api.get(`/reviewQueues/${queue.id}/items`, { limit: 100 })).body as {
      id: string;
      sessionId: string;
    }[];
    const bySession = new Map(items.map((i) => [i.sessionId, i.id]));
    for (const sessionId of sampled) {
      const res = await t.api.put(`/reviewQueues/${queue.id}/items/${bySession.get(sessionId)}/labels`, {
        reviewer: 'ann',
        labels: [{ metricId: t.metric.id, score: human(sessionId), reason: 'checked' }],
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.status).toBe('PENDING');
      expect(res.body.labels).toEqual([
        expect.objectContaining({ reviewer: 'ann', metricId: t.metric.id, score: human(sessionId), reason: 'checked' }),
      ]);
    }
    // ann has nothing but the 4 unlabelled items left; bob sees all 16.
    expect((await t.api.post(`/reviewQueues/${queue.id}/next`, { reviewer: 'ann' })).body.remaining).toBe(4);
    expect((await t.api.post(`/reviewQueues/${queue.id}/next`, { reviewer: 'bob' })).body.remaining).toBe(16);
    const bobs = sampled.slice(0, 6);
    for (const sessionId of bobs) {
      const res = await t.api.put(`/reviewQueues/${queue.id}/items/${bySession.get(sessionId)}/labels`, {
        reviewer: 'bob',
        labels: [{ metricId: t.metric.id, score: human(sessionId) }],
      });
      expect(res.body.status).toBe('DONE');
    }
    // A reviewer's second label of a metric replaces the first (the item stays DONE).
    const relabel = await t.api.put(`/reviewQueues/${queue.id}/items/${bySession.get(bobs[0]!)}/labels`, {
      reviewer: 'bob',
      labels: [{ metricId: t.metric.id, score: human(bobs[0]!) }],
    });
    expect(relabel.body.labels).toHaveLength(2);
    expect((await t.api.get(`/reviewQueues/${queue.id}`)).body.counts).toEqual({ items: 16, pending: 10, done: 6 });
    expect((await t.api.get(`/reviewQueues/${queue.id}/items`, { status: 'DONE' })).headers['x-total-count']).toBe('6');
    expect((await t.api.get(`/reviewQueues/${queue.id}/items`, { reviewer: 'bob' })).headers['x-total-count']).toBe(
      '6',
    );
    // One reviewer per item is enough now: every item ann labelled is DONE.
    await t.api.patch(`/reviewQueues/${queue.id}`, { reviewersPerItem: 1 });
    expect((await t.api.get(`/reviewQueues/${queue.id}`)).body.counts).toEqual({ items: 16, pending: 4, done: 12 });

    // A hand-picked label counts in `labels` but never in the correction.
    const pickedItem = picked.body.items[0] as { id: string; sessionId: string };
    await t.api.put(`/reviewQueues/${again.id}/items/${pickedItem.id}/labels`, {
      reviewer: 'cid',
      labels: [{ metricId: t.metric.id, score: 0 }],
    });

    const run = (await t.api.get(`/runs/${t.run.id}`)).body;
    const m = run.metrics[0];
    expect(m.labels).toBe(13);
    // PPI++ from the formulas: L the 12 sampled sessions (y the mean of ann's and bob's labels), U the 4 others.
    const L = sampled.map((s) => ({ f: t.judge.get(s)!, y: human(s) }));
    const U = t.sessions.filter((s) => !sampled.includes(s.id)).map((s) => t.judge.get(s.id)!);
    const n = L.length;
    const N = U.length;
    const all = [...L.map((p) => p.f), ...U];
    const mf = mean(L.map((p) => p.f));
    const my = mean(L.map((p) => p.y));
    const cov = L.reduce((a, p) => a + (p.f - mf) * (p.y - my), 0) / (n - 1);
    const lambda = Math.min(1, Math.max(0, cov / ((1 + n / N) * variance(all))));
    const score = lambda * mean(U) + mean(L.map((p) => p.y - lambda * p.f));
    const V = (lambda ** 2 * variance(U)) / N + variance(L.map((p) => p.y - lambda * p.f)) / n;
    expect(m.corrected.labeled).toBe(12);
    expect(m.corrected.unlabeled).toBe(4);
    expect(m.corrected.lambda).toBeCloseTo(lambda, 12);
    expect(m.corrected.score).toBeCloseTo(score, 12);
    expect(m.corrected.interval.lower).toBeCloseTo(Math.max(0, score - Z * Math.sqrt(V)), 12);
    expect(m.corrected.interval.upper).toBeCloseTo(Math.min(1, score + Z * Math.sqrt(V)), 12);
    expect(m.corrected.effectiveLabels).toBeCloseTo(variance(L.map((p) => p.y)) / V, 9);
    // The judge's score stays beside it.
    expect(m.score).toBeCloseTo(mean(scores), 9);

    // Agreement of the metric: 13 labelled sessions with a judge score.
    const agreement = await t.api.get(`/metrics/${t.metric.id}/agreement`);
    expect(agreement.status).toBe(200);
    const pairs = [
      ...L.map((p, i) => ({ f: p.f, y: p.y, s: sampled[i]! })),
      { f: t.judge.get(pickedItem.sessionId)!, y: 0, s: pickedItem.sessionId },
    ];
    const d = pairs.map((p) => p.f - p.y);
    const bias = mean(d);
    expect(agreement.body).toMatchObject({ metricId: t.metric.id, n: 13, binary: false, kappa: null });
    expect(agreement.body.judgeMean).toBeCloseTo(mean(pairs.map((p) => p.f)), 12);
    expect(agreement.body.humanMean).toBeCloseTo(mean(pairs.map((p) => p.y)), 12);
    expect(agreement.body.bias).toBeCloseTo(bias, 12);
    expect(agreement.body.biasInterval.lower).toBeCloseTo(bias - (Z * Math.sqrt(variance(d))) / Math.sqrt(13), 12);
    expect(agreement.body.meanAbsoluteError).toBeCloseTo(mean(d.map(Math.abs)), 12);
    expect(agreement.body.reviewers.units).toBe(6);
    expect(agreement.body.reviewers.values).toBe(12);
    expect(agreement.body.verdict).toBe('not_enough_data');
    const product = await t.api.get(`/metrics/${t.metric.id}/agreement`, { productId: 'prod_none' });
    expect(product.body.n).toBe(0);
    expect((await t.api.get(`/metrics/${t.metric.id}/agreement`, { from: 'yesterday' })).status).toBe(400);
    expect((await t.api.get('/metrics/met_missing/agreement')).status).toBe(404);
    const other = await newTenant();
    expect((await other.api.get(`/metrics/${t.metric.id}/agreement`)).status).toBe(403);

    // Nothing left for ann once every item is labelled: 204.
    for (const item of (await t.api.get(`/reviewQueues/${queue.id}/items`, { status: 'PENDING' })).body)
      await t.api.put(`/reviewQueues/${queue.id}/items/${item.id}/labels`, {
        reviewer: 'ann',
        labels: [{ metricId: t.metric.id, score: 1 }],
      });
    const none = await t.api.post(`/reviewQueues/${queue.id}/next`, { reviewer: 'ann' });
    expect(none.status).toBe(204);
    expect(none.body).toBeUndefined();
  });

  it('refuses sessions of another product, and takes a monitor’s sample only from its product', async () => {
    const t = await runOf([0.5, 0.6]);
    const elsewhere = await createProduct(t.api, { name: 'Another bot' });
    const queue = await newQueue(t.api, { productId: elsewhere.id, name: 'q', metricIds: [t.metric.id] });
    const res = await t.api.post(`/reviewQueues/${queue.id}/items`, { sessionIds: [t.sessions[0]!.id] });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain(`session ${t.sessions[0]!.id} belongs to product ${t.product.id}`);
    const run = await t.api.post(`/reviewQueues/${queue.id}/items`, { runId: t.run.id, sampleSize: 1 });
    expect(run.status).toBe(400);
    expect(run.body.message).toMatch(/^runId:/);
    const other = await newTenant();
    const otherProduct = await createProduct(other.api);
    const otherVersion = await createVersion(other.api, otherProduct.id);
    const otherSession = (await other.api.post('/sessions', { versionId: otherVersion.id })).body as { id: string };
    const foreign = await t.api.post(`/reviewQueues/${queue.id}/items`, { sessionIds: [otherSession.id] });
    expect(foreign.status).toBe(403);
    expect(foreign.body.message).toContain(otherSession.id);
    const monitor = await t.api.post(`/reviewQueues/${queue.id}/items`, {
      monitorId: 'mon_x',
      sampleSize: 5,
      from: '2026-01-02T00:00:00Z',
      to: '2026-01-01T00:00:00Z',
    });
    expect(monitor.status).toBe(400);
    expect(
      (
        await t.api.post(`/reviewQueues/${queue.id}/items`, {
          runId: t.run.id,
          sampleSize: 1,
          from: '2026-01-01T00:00:00Z',
        })
      ).body.message,
    ).toMatch(/from applies to a monitor/);
  });

  it('draws a sample of a monitor’s scored production sessions in a time range', async () => {
    const t = await newTenant({ monthlyCredits: 1000 });
    const product = await createProduct(t.api);
    const version = await createVersion(t.api, product.id);
    const monitor = (
      await t.api.post('/monitors', {
        productId: product.id,
        name: 'production',
        metricGroupIds: ['mgrp_non_empty_output'],
        samplingPercentage: 100,
      })
    ).body as { id: string };
    const scored: string[] = [];
    for (const input of ['a', 'b', 'c', 'd']) {
      const s = (await t.api.post('/sessions', { versionId: version.id })).body as { id: string };
      await t.api.post('/inferenceResults', { sessionId: s.id, input, output: `answer ${input}` });
      await t.api.patch(`/sessions/${s.id}`, { status: 'COMPLETED' });
      scored.push(s.id);
    }
    // A session still open is not scored, so it is never drawn.
    const open = (await t.api.post('/sessions', { versionId: version.id })).body as { id: string };
    await t.api.post('/inferenceResults', { sessionId: open.id, input: 'e', output: 'answer e' });
    await drainLocalQueue((e) => evaluator(e) as Promise<unknown>, { duplicate: true });
    const queue = await newQueue(t.api, { productId: product.id, name: 'prod', metricIds: ['met_non_empty_output'] });
    const first = await t.api.post(`/reviewQueues/${queue.id}/items`, {
      monitorId: monitor.id,
      sampleSize: 3,
      seed: 'x',
    });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body.added).toBe(3);
    const rest = await t.api.post(`/reviewQueues/${queue.id}/items`, { monitorId: monitor.id, sampleSize: 5 });
    expect(rest.body.added).toBe(1);
    const drawn = [...first.body.items, ...rest.body.items].map((i: { sessionId: string }) => i.sessionId).sort();
    expect(drawn).toEqual([...scored].sort());
    const past = await newQueue(t.api, { productId: product.id, name: 'past', metricIds: ['met_non_empty_output'] });
    const none = await t.api.post(`/reviewQueues/${past.id}/items`, {
      monitorId: monitor.id,
      sampleSize: 5,
      from: '2020-01-01T00:00:00Z',
      to: '2020-01-02T00:00:00Z',
    });
    expect(none.body).toMatchObject({ added: 0, skipped: 0, items: [] });
    const other = await newTenant();
    const foreignQueue = await newQueue(other.api, {
      productId: (await createProduct(other.api)).id,
      name: 'theirs',
      metricIds: ['met_non_empty_output'],
    });
    const foreign = await other.api.post(`/reviewQueues/${foreignQueue.id}/items`, {
      monitorId: monitor.id,
      sampleSize: 2,
    });
    expect(foreign.status).toBe(403);
  });

  it('keeps an item’s labels within what one item can hold', async () => {
    const t = await newTenant();
    const product = await createProduct(t.api);
    const version = await createVersion(t.api, product.id);
    const session = (await t.api.post('/sessions', { versionId: version.id })).body as { id: string };
    const queue = await newQueue(t.api, { productId: product.id, name: 'q', metricIds: ['met_non_empty_output'] });
    const item = (await t.api.post(`/reviewQueues/${queue.id}/items`, { sessionIds: [session.id] })).body.items[0];
    const label = (reviewer: string) =>
      t.api.put(`/reviewQueues/${queue.id}/items/${item.id}/labels`, {
        reviewer,
        labels: [{ metricId: 'met_non_empty_output', score: 1, reason: 'r'.repeat(10_000) }],
      });
    let last = await label('r0');
    for (let i = 1; i < 40 && last.status === 200; i++) last = await label(`r${i}`);
    expect(last.status).toBe(400);
    expect(last.body.message).toMatch(/shorten the reasons/);
    const stored = (await t.api.get(`/reviewQueues/${queue.id}/items`)).body[0];
    expect(stored.labels.length).toBeGreaterThanOrEqual(29);
    expect(stored.status).toBe('DONE');
  });
});
