import { localQueue } from '../../infra/local/queues.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { newTenant } from '../support/api.js';
import { createProduct, createVersion } from '../support/fixtures.js';
import { drainLocalQueue } from '../../infra/local/queue.js';
import { handler as evaluator } from '../../functions/jobs/evaluator.js';
import { runScanner } from '../../shared/domain/monitors/scanner.js';
import { runAggregator } from '../../shared/domain/monitors/aggregator.js';
import { isSampled } from '../../shared/domain/monitors/sampling.js';
import { clock } from '../../shared/domain/common/clock.js';
import { doc, tableName } from '../../shared/db/client.js';
import { keys } from '../../shared/db/keys.js';
import { processMonitorJob } from '../../shared/domain/monitors/engine.js';

const drain = (duplicate = false) => drainLocalQueue((e) => evaluator(e) as Promise<unknown>, { duplicate });

beforeEach(() => {
  localQueue.messages.length = 0;
});
afterEach(() => vi.restoreAllMocks());

async function setup(o: { monthlyCredits?: number | null } = {}) {
  const t = await newTenant({ monthlyCredits: o.monthlyCredits === undefined ? 1000 : o.monthlyCredits });
  const product = await createProduct(t.api);
  const version = await createVersion(t.api, product.id);
  const monitor = async (body: Record<string, unknown> = {}) => {
    const res = await t.api.post('/monitors', {
      productId: product.id,
      name: 'quality',
      metricGroupIds: ['mgrp_is_json'],
      samplingPercentage: 100,
      ...body,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body;
  };
  const session = async (input: string, output: string | null) => {
    const s = (await t.api.post('/sessions', { versionId: version.id })).body;
    await t.api.post('/inferenceResults', { sessionId: s.id, input, output });
    return s;
  };
  const close = (id: string) => t.api.patch(`/sessions/${id}`, { status: 'COMPLETED' });
  return { ...t, product, version, monitor, session, close };
}

describe('monitor records', () => {
  it('creates with defaults, reads, lists with every filter, updates and soft-deletes', async () => {
    const t = await setup();
    const m = await t.monitor({
      versionId: t.version.id,
      monthlyCreditCap: 50,
      filterQuery: 'refund',
      filterTarget: 'INPUT',
    });
    expect(m).toMatchObject({
      status: 'ACTIVE',
      samplingPercentage: 100,
      monthlyCreditCap: 50,
      versionId: t.version.id,
      excludeQuery: null,
    });
    expect((await t.api.get(`/monitors/${m.id}`)).body).toEqual(m);
    const other = await t.monitor({ name: 'other', metricGroupIds: ['mgrp_no_pii'], status: 'PAUSED' });
    const ids = async (q: Record<string, string>) =>
      ((await t.api.get('/monitors', q)).body as { id: string }[]).map((x) => x.id).sort();
    expect(await ids({ statuses: 'PAUSED' })).toEqual([other.id]);
    expect(await ids({ metricGroupIds: 'mgrp_is_json' })).toEqual([m.id]);
    expect(await ids({ versionIds: t.version.id })).toEqual([m.id]);
    expect(await ids({ productIds: t.product.id })).toHaveLength(2);
    expect(await ids({ names: 'other' })).toEqual([other.id]);
    const upd = await t.api.patch(`/monitors/${m.id}`, { samplingPercentage: 25, status: 'PAUSED' });
    expect(upd.body).toMatchObject({ samplingPercentage: 25, status: 'PAUSED' });
    const results = (await t.api.get(`/monitors/${m.id}/results`)).body;
    expect(results.markers.samplingChanges).toEqual([{ at: expect.any(String), samplingPercentage: 25 }]);
    expect((await t.api.del(`/monitors/${m.id}`)).status).toBe(200);
    expect(await ids({})).toEqual([other.id]);
    expect((await t.api.get(`/monitors/${m.id}/results`)).status).toBe(404);
    expect((await t.api.patch(`/monitors/${m.id}`, { name: 'x' })).status).toBe(404);
  });

  it.each([
    [{ samplingPercentage: 0 }, 'samplingPercentage must be greater than 0'],
    [{ samplingPercentage: 100.5 }, 'samplingPercentage must be at most 100'],
    [{ monthlyCreditCap: 0 }, 'monthlyCreditCap must be at least 1'],
    [{ monthlyCreditCap: 1.5 }, 'monthlyCreditCap must be an integer or null'],
    [{ filterQuery: 'x'.repeat(501), filterTarget: 'INPUT' }, 'filterQuery must have at most 500 characters'],
    [{ filterQuery: 'refund' }, 'filterQuery and filterTarget must be set together (or both null)'],
    [{ excludeTarget: 'OUTPUT' }, 'excludeQuery and excludeTarget must be set together (or both null)'],
    [{ filterQuery: 'a', filterTarget: 'BOTH' }, 'filterTarget must be one of: INPUT, OUTPUT, EITHER, null'],
    [{ metricGroupIds: [] }, 'metricGroupIds must have at least 1 item'],
    [
      { metricGroupIds: ['mgrp_text_similarity'] },
      /cannot be monitored.*test-case-only parameters \(expected_output\)/,
    ],
    [{ metricGroupIds: ['mgrp_nope'] }, /does not name a metric family/],
    [{ status: 'CAPPED' }, 'status CAPPED is set only by the system; write ACTIVE or PAUSED'],
    [{ versionId: 'ver_nope' }, /versionId ver_nope does not name an existing version/],
  ])('rejects %j', async (override, message) => {
    const t = await setup();
    const res = await t.api.post('/monitors', {
      productId: t.product.id,
      name: 'm',
      metricGroupIds: ['mgrp_is_json'],
      samplingPercentage: 10,
      ...override,
    });
    expect(res.status).toBe(400);
    if (typeof message === 'string') expect(res.body.message).toBe(message);
    else expect(res.body.message).toMatch(message);
  });

  it('refuses system status writes and keeps records to their organization', async () => {
    const t = await setup();
    const other = await setup();
    const m = await t.monitor();
    for (const status of ['CAPPED', 'NO_CREDITS', 'FAILING']) {
      expect((await t.api.patch(`/monitors/${m.id}`, { status })).status).toBe(400);
    }
    expect((await t.api.get(`/monitors/${m.id}`)).body.status).toBe('ACTIVE');
    expect((await other.api.get(`/monitors/${m.id}`)).status).toBe(403);
    expect((await other.api.get(`/monitors/${m.id}/results`)).status).toBe(403);
    expect((await other.api.patch(`/monitors/${m.id}`, { name: 'x' })).status).toBe(403);
    expect((await t.api.get('/monitors/mon_nope/results')).status).toBe(404);
    const otherVersion = await createVersion(other.api, other.product.id);
    expect(
      (
        await t.api.post('/monitors', {
          productId: t.product.id,
          name: 'm',
          metricGroupIds: ['mgrp_is_json'],
          samplingPercentage: 1,
          versionId: otherVersion.id,
        })
      ).status,
    ).toBe(403);
  });

  it('validates results days', async () => {
    const t = await setup();
    const m = await t.monitor();
    for (const days of ['0', '91', '1.5', 'abc'])
      expect((await t.api.get(`/monitors/${m.id}/results`, { days })).status).toBe(400);
    const res = await t.api.get(`/monitors/${m.id}/results`, { days: 90 });
    expect(res.body.metrics[0].buckets).toHaveLength(90);
    expect(res.body.range.bucketDays).toBe(1);
  });
});

describe('monitor engine', () => {
  it('attaches, filters, scores on close, aggregates, and reports', async () => {
    const t = await setup();
    const m = await t.monitor({
      metricGroupIds: ['mgrp_is_json', 'mgrp_non_empty_output'],
      excludeQuery: 'ignore me',
      excludeTarget: 'EITHER',
    });
    const paused = await t.monitor({ name: 'paused later' });
    const a = await t.session('Refund please', '{"ok":true}');
    const b = await t.session('hello', 'not json');
    const c = await t.session('please ignore me', '{}');
    const open = await t.session('still talking', null);
    let results = (await t.api.get(`/monitors/${m.id}/results`)).body;
    expect(results.sessions.waiting.map((w: { sessionId: string }) => w.sessionId).sort()).toEqual(
      [a.id, b.id, c.id, open.id].sort(),
    );
    expect(results.sessions.waiting.find((w: { sessionId: string }) => w.sessionId === a.id).description).toBe(
      'Refund please',
    );
    const attached = (await t.api.get(`/sessions/${a.id}`)).body;
    expect(Object.keys(attached).some((k) => /monitorIds/i.test(k))).toBe(false);
    await t.api.patch(`/monitors/${paused.id}`, { status: 'PAUSED' });
    for (const s of [a, b, c]) await t.close(s.id);
    await drain(true); // every job delivered twice: still one score per (monitor, session, family)
    await runAggregator();
    await runAggregator();
    results = (await t.api.get(`/monitors/${m.id}/results`)).body;
    const byGroup = Object.fromEntries(results.metrics.map((x: { metricGroupId: string }) => [x.metricGroupId, x]));
    expect(byGroup.mgrp_is_json.headline).toMatchObject({
      scoredSessions: 2,
      score: 0.5,
      confidenceInterval: null,
      collectingData: true,
    });
    expect(byGroup.mgrp_non_empty_output.headline).toMatchObject({ scoredSessions: 2, score: 1 });
    expect(results.worstMetric).toMatchObject({ metricGroupId: 'mgrp_is_json', score: 0.5, name: 'is_json' });
    expect(results.sessions.scored.map((s: { sessionId: string }) => s.sessionId).sort()).toEqual([a.id, b.id].sort());
    expect(results.sessions.scored[0]).toMatchObject({ settledAtTurn: 1 });
    expect(results.sessions.waiting.map((w: { sessionId: string }) => w.sessionId)).toEqual([open.id]);
    const today = byGroup.mgrp_is_json.buckets.at(-1);
    expect(today).toMatchObject({ scoredSessions: 2, score: 0.5 });
    expect(byGroup.mgrp_is_json.buckets).toHaveLength(7);
    expect(byGroup.mgrp_is_json.buckets[0]).toMatchObject({ scoredSessions: 0, score: null });
    expect(results.spend).toMatchObject({
      spentCredits: 0,
      pendingCredits: 0,
      capCredits: null,
      cycleStart: expect.any(String),
    });
    // the monitor paused before the sessions closed had them waiting, then scored none of them
    const pausedResults = (await t.api.get(`/monitors/${paused.id}/results`)).body;
    expect(pausedResults.metrics[0].headline.scoredSessions).toBe(0);
    expect(pausedResults.sessions.waiting.map((w: { sessionId: string }) => w.sessionId)).toEqual([open.id]);
  });

  it('samples deterministically and closes idle sessions in the scanner', async () => {
    const t = await setup();
    const m = await t.monitor({ samplingPercentage: 50 });
    const sessions = await Promise.all(Array.from({ length: 12 }, (_, i) => t.session(`q${i}`, '{}')));
    const expected = sessions
      .filter((s) => isSampled(m.id, s.id, 50))
      .map((s) => s.id)
      .sort();
    let results = (await t.api.get(`/monitors/${m.id}/results`)).body;
    expect(results.sessions.waiting.map((w: { sessionId: string }) => w.sessionId).sort()).toEqual(expected);
    vi.spyOn(clock, 'now').mockReturnValue(new Date(Date.now() + 31 * 60_000));
    await runScanner();
    vi.restoreAllMocks();
    await drain();
    await runAggregator();
    results = (await t.api.get(`/monitors/${m.id}/results`)).body;
    expect(results.sessions.waiting).toEqual([]);
    expect(results.metrics[0].headline.scoredSessions).toBe(expected.length);
    expect((await t.api.get(`/sessions/${expected[0]!}`)).body).toMatchObject({
      status: 'COMPLETED',
      stoppingReason: 'idle_timeout',
    });
    const unsampled = sessions.find((s) => !expected.includes(s.id));
    if (unsampled) expect((await t.api.get(`/sessions/${unsampled.id}`)).body.status).toBe('PENDING');
  });

  it('picks up a new revision without editing the monitor, and marks it', async () => {
    const t = await setup();
    const root = (
      await t.api.post('/metrics', {
        name: 'judge',
        source: 'PARTIAL_PROMPT',
        evaluationParams: ['actual_output'],
        judgePrompt: 'p',
        evaluatorModelName: 'gpt-4o-mini',
      })
    ).body;
    const m = await t.monitor({ metricGroupIds: ['mgrp_is_json', root.metricGroupId] });
    const rev = (
      await t.api.post('/metrics', {
        name: 'judge v2',
        source: 'PARTIAL_PROMPT',
        evaluationParams: ['actual_output'],
        judgePrompt: 'p2',
        evaluatorModelName: 'gpt-4o-mini',
        parentMetricId: root.id,
      })
    ).body;
    const s = await t.session('x', '{}');
    await t.close(s.id);
    await drain();
    const evals = (await t.api.get('/evaluations', { sessionIds: s.id })).body as {
      metricId: string;
      metricName: string;
      monitorId: string;
    }[];
    expect(evals.map((e) => e.metricId).sort()).toEqual(['met_is_json', rev.id].sort());
    expect(Object.fromEntries(evals.map((e) => [e.metricId, e.metricName]))).toEqual({
      met_is_json: 'is_json',
      [rev.id]: 'judge v2',
    });
    expect(evals.every((e) => e.monitorId === m.id)).toBe(true);
    const results = (await t.api.get(`/monitors/${m.id}/results`)).body;
    expect(results.markers.metricRevisions).toEqual([
      { metricGroupId: root.metricGroupId, name: 'judge v2', metricId: rev.id, at: rev.createdAt },
    ]);
  });
});

describe('monitors with check metrics', () => {
  it('bind a check family, score it in code once per session (jobs delivered twice), follow a new check revision; a check on expected_output cannot be bound', async () => {
    const t = await setup();
    const check = async (body: Record<string, unknown>) => {
      const res = await t.api.post('/metrics', { name: 'mentions refunds', source: 'DETERMINISTIC', ...body });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body;
    };
    const reference = await check({
      name: 'matches the reference',
      check: { type: 'equals', value: 'ok', target: 'expected_output' },
    });
    const refused = await t.api.post('/monitors', {
      productId: t.product.id,
      name: 'm',
      metricGroupIds: [reference.metricGroupId],
      samplingPercentage: 100,
    });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/cannot be monitored.*test-case-only parameters \(expected_output\)/);

    const root = await check({ check: { type: 'contains', value: 'refund' } });
    const m = await t.monitor({ metricGroupIds: [root.metricGroupId] });
    const a = await t.session('Can I return it?', 'Yes, a refund takes 5 days.');
    const b = await t.session('Hello', 'Hi! How can I help?');
    for (const s of [a, b]) await t.close(s.id);
    await drain(true);
    await runAggregator();
    let results = (await t.api.get(`/monitors/${m.id}/results`)).body;
    expect(results.metrics[0].headline).toMatchObject({ scoredSessions: 2, score: 0.5 });
    expect(results.spend).toMatchObject({ spentCredits: 0, pendingCredits: 0 });
    const reasons = async (id: string) =>
      (await t.api.get('/evaluations', { sessionIds: id })).body as {
        reason: string;
        monitorId: string;
        metricId: string;
      }[];
    expect(await reasons(a.id)).toMatchObject([
      {
        monitorId: m.id,
        metricId: root.id,
        reason: 'mentions refunds: found "refund" in actual_output at character 8: "Yes, a refund takes 5 days."',
      },
    ]);
    expect(await reasons(b.id)).toMatchObject([
      { monitorId: m.id, reason: 'mentions refunds: "refund" not found in actual_output (19 characters searched)' },
    ]);

    // a new check is a revision of the family: the monitor scores the next session with it
    const rev = await check({
      parentMetricId: root.id,
      check: { type: 'contains_any', values: ['refund', 'return'], caseSensitive: false },
    });
    const c = await t.session('Hello', 'You may RETURN it.');
    await t.close(c.id);
    await drain(true);
    await runAggregator();
    expect(await reasons(c.id)).toMatchObject([
      { metricId: rev.id, reason: 'mentions refunds: found 1 of 2 values in actual_output: "return" at character 9' },
    ]);
    results = (await t.api.get(`/monitors/${m.id}/results`)).body;
    expect(results.metrics[0].headline).toMatchObject({ scoredSessions: 3 });
    expect(results.markers.metricRevisions).toEqual([
      { metricGroupId: root.metricGroupId, name: 'mentions refunds', metricId: rev.id, at: rev.createdAt },
    ]);
  });
});

describe('scanner statuses and credits', () => {
  async function setUsed(key: { pk: string; sk: string }, used: number) {
    await doc.send(
      new UpdateCommand({
        TableName: tableName,
        Key: key,
        UpdateExpression: 'SET used = :u, spentCredits = :u, pendingCredits = :z',
        ExpressionAttributeValues: { ':u': used, ':z': 0 },
      }),
    );
  }
  const cycle = () => new Date().toISOString().slice(0, 7);

  it('sets CAPPED and NO_CREDITS and clears them when the facts change; leaves PAUSED alone', async () => {
    const t = await setup({ monthlyCredits: 100 });
    const m = await t.monitor({ monthlyCreditCap: 10 });
    const paused = await t.monitor({ status: 'PAUSED', monthlyCreditCap: 10 });
    await setUsed(keys.monitorSpend(m.id, cycle()), 10);
    await setUsed(keys.monitorSpend(paused.id, cycle()), 10);
    await runScanner();
    expect((await t.api.get(`/monitors/${m.id}`)).body.status).toBe('CAPPED');
    expect((await t.api.get(`/monitors/${paused.id}`)).body.status).toBe('PAUSED');
    await setUsed(keys.monitorSpend(m.id, cycle()), 0);
    await setUsed(keys.orgSpend(t.org.id, cycle()), 100);
    await runScanner();
    expect((await t.api.get(`/monitors/${m.id}`)).body.status).toBe('NO_CREDITS');
    await setUsed(keys.orgSpend(t.org.id, cycle()), 0);
    await runScanner();
    await runScanner();
    expect((await t.api.get(`/monitors/${m.id}`)).body.status).toBe('ACTIVE');
  });

  it('sets FAILING after five failed attempts, clears it on a success; a user status write starts a new window', async () => {
    const t = await setup();
    const judged = (
      await t.api.post('/metrics', {
        name: 'j',
        source: 'PARTIAL_PROMPT',
        evaluationParams: ['actual_output'],
        judgePrompt: 'p',
        evaluatorModelName: 'gpt-4o-mini',
      })
    ).body;
    const m = await t.monitor({ metricGroupIds: [judged.metricGroupId] });
    for (let i = 0; i < 5; i++) await t.close((await t.session(`q${i}`, 'a')).id); // no judge configured: each attempt fails
    await drain();
    await runScanner();
    expect((await t.api.get(`/monitors/${m.id}`)).body.status).toBe('FAILING');
    // a success clears it (FAILING monitors keep sampling)
    const { setLlmConfig } = await import('../../shared/llm/client.js');
    const { startJudge } = await import('../support/judge-server.js');
    const judge = await startJudge();
    setLlmConfig({ baseUrl: judge.url, timeoutMs: 2000 });
    try {
      await t.close((await t.session('ok', 'fine')).id);
      await drain();
      await runScanner();
      expect((await t.api.get(`/monitors/${m.id}`)).body.status).toBe('ACTIVE');
    } finally {
      setLlmConfig({ baseUrl: undefined });
      await judge.close();
    }
    // back to FAILING after five more failures; then a user write starts a new window
    for (let i = 0; i < 5; i++) await t.close((await t.session(`again${i}`, 'a')).id);
    await drain();
    await runScanner();
    expect((await t.api.get(`/monitors/${m.id}`)).body.status).toBe('FAILING');
    await t.api.patch(`/monitors/${m.id}`, { status: 'ACTIVE' });
    await runScanner();
    expect((await t.api.get(`/monitors/${m.id}`)).body.status).toBe('ACTIVE');
  });

  it('a user PAUSED racing the scanner stays PAUSED', async () => {
    const t = await setup({ monthlyCredits: 100 });
    const m = await t.monitor({ monthlyCreditCap: 5 });
    await setUsed(keys.monitorSpend(m.id, cycle()), 5);
    for (let round = 0; round < 5; round++) {
      await t.api.patch(`/monitors/${m.id}`, { status: 'ACTIVE' });
      const [, paused] = await Promise.all([runScanner(), t.api.patch(`/monitors/${m.id}`, { status: 'PAUSED' })]);
      expect(paused.status).toBe(200);
      await runScanner();
      expect((await t.api.get(`/monitors/${m.id}`)).body.status).toBe('PAUSED');
    }
  });

  it('never exceeds the cap under 50 concurrent jobs, and clamps spend to the organization’s credits', async () => {
    const t = await setup({ monthlyCredits: 30 });
    const judged = (
      await t.api.post('/metrics', {
        name: 'j',
        source: 'PARTIAL_PROMPT',
        evaluationParams: ['actual_output'],
        judgePrompt: 'p',
        evaluatorModelName: 'gpt-4o',
      })
    ).body; // 4 credits
    const capped = await t.monitor({ metricGroupIds: [judged.metricGroupId], monthlyCreditCap: 20 });
    const { setLlmConfig } = await import('../../shared/llm/client.js');
    const { startJudge } = await import('../support/judge-server.js');
    const judge = await startJudge();
    setLlmConfig({ baseUrl: judge.url, timeoutMs: 2000 });
    try {
      const sessions = await Promise.all(Array.from({ length: 50 }, (_, i) => t.session(`q${i}`, 'a')));
      for (const s of sessions) await t.close(s.id);
      localQueue.messages.length = 0;
      await Promise.all(sessions.map((s) => processMonitorJob(capped.id, s.id)));
      const spend = (await t.api.get(`/monitors/${capped.id}/results`)).body.spend;
      expect(spend.spentCredits + spend.pendingCredits).toBeLessThanOrEqual(20);
      expect(spend.spentCredits).toBe(20);
      // a redelivered job charges nothing more
      await Promise.all(sessions.slice(0, 10).map((s) => processMonitorJob(capped.id, s.id)));
      expect((await t.api.get(`/monitors/${capped.id}/results`)).body.spend.spentCredits).toBe(20);
      // a second monitor with a larger cap is clamped by the organization's 30 credits
      const big = await t.monitor({ name: 'big', metricGroupIds: [judged.metricGroupId], monthlyCreditCap: 1000 });
      const more = await Promise.all(Array.from({ length: 10 }, (_, i) => t.session(`r${i}`, 'a')));
      for (const s of more) await t.close(s.id);
      localQueue.messages.length = 0;
      await Promise.all(more.map((s) => processMonitorJob(big.id, s.id)));
      const org = (await t.api.get('/organization')).body;
      expect(org.spentCredits).toBeLessThanOrEqual(30);
      expect(org.spentCredits).toBe(28);
      await runScanner();
      expect((await t.api.get(`/monitors/${capped.id}`)).body.status).toBe('CAPPED');
    } finally {
      setLlmConfig({ baseUrl: undefined });
      await judge.close();
    }
  }, 60_000);
});
