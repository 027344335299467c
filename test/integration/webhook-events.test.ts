import { localQueue, localRunQueue, localWebhookQueue } from '../../infra/local/queues.js';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { newTenant } from '../support/api.js';
import { createConnection, createProduct, createVersion, uploadCsv } from '../support/fixtures.js';
import { echoAgent, sendJson, startAgent, type TestAgentServer } from '../support/agent-server.js';
import { clock } from '../../shared/domain/common/clock.js';
import { doc, tableName } from '../../shared/db/client.js';
import { keys } from '../../shared/db/keys.js';
import { runScanner } from '../../shared/domain/monitors/scanner.js';
import { runAggregator } from '../../shared/domain/monitors/aggregator.js';
import { drainLocalQueue } from '../../infra/local/queue.js';
import { drainRunQueue } from '../../infra/local/run-queue.js';
import { webhookDelayQueue } from '../../infra/local/webhook-queue.js';
import { handler as deliverer } from '../../functions/jobs/deliverer.js';
import { handler as evaluator } from '../../functions/jobs/evaluator.js';
import { handler as runner } from '../../functions/jobs/runner.js';

let agent: TestAgentServer;
let receiver: TestAgentServer;

beforeAll(async () => {
  process.env.AGENT_ALLOW_PRIVATE_NETWORKS = 'true';
  agent = await startAgent();
  receiver = await startAgent();
});
afterAll(async () => {
  await agent.close();
  await receiver.close();
});
beforeEach(() => {
  localWebhookQueue.messages.length = 0;
  localRunQueue.messages.length = 0;
  localQueue.messages.length = 0;
  agent.setHandler(echoAgent);
  receiver.setHandler((_req, res) => sendJson(res, 200, {}));
});
afterEach(() => vi.restoreAllMocks());

/** Removes attributes from a stored item, as records written before they existed lack them. */
const removeAttributes = (key: { pk: string; sk: string }, names: string[]) =>
  doc.send(
    new UpdateCommand({
      TableName: tableName,
      Key: key,
      UpdateExpression: `REMOVE ${names.map((_, i) => `#a${i}`).join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(names.map((n, i) => [`#a${i}`, n])),
    }),
  );

const deliver = (duplicate = false) =>
  drainRunQueue((e) => deliverer(e) as Promise<unknown>, { queue: webhookDelayQueue, visibleOnly: true, duplicate });

/** A tenant with a webhook at its own path on the receiver; `received()` lists what reached it. */
async function tenantWithWebhook(events: string[], options: { monthlyCredits?: number } = {}) {
  const t = await newTenant(options);
  const path = `/${t.org.id}`;
  const res = await t.api.post('/webhooks', { url: `${receiver.url}${path}`, events });
  expect(res.status).toBe(201);
  const received = () =>
    receiver.requests
      .filter((r) => r.url === path)
      .map((r) => r.json as { type: string; timestamp: string; data: any });
  return { ...t, webhookId: res.body.id as string, received };
}

async function runOnce(t: Awaited<ReturnType<typeof tenantWithWebhook>>) {
  const product = await createProduct(t.api);
  const connection = await createConnection(t.api, product.id, {
    url: `${agent.url}/chat`,
    outputMapping: { output: '$.reply' },
  });
  const version = await createVersion(t.api, product.id, { conversationEndpointConnectionId: connection.id });
  const uri = await uploadCsv(t.api, 'input,expected_output\nhello,hello\nbye,bye\n');
  const test = (await t.api.post('/tests', { productId: product.id, name: 'smoke', type: 'QUALITY', uri })).body;
  const run = await t.api.post('/runs', {
    versionId: version.id,
    testId: test.id,
    metricIds: ['met_non_empty_output'],
  });
  expect(run.status, JSON.stringify(run.body)).toBe(201);
  // Every run job delivered twice: the run still finishes once.
  await drainRunQueue((e) => runner(e) as Promise<unknown>, { duplicate: true });
  return run.body.id as string;
}

describe('events of runs', () => {
  // A whole run (upload, fan-out, turns, scoring) with every job twice: slow on a loaded machine.
  it('sends run.completed once when the run finishes, with the run as it reads', { timeout: 90_000 }, async () => {
    const t = await tenantWithWebhook(['run.completed', 'run.failed']);
    const runId = await runOnce(t);
    await deliver(true);
    const events = t.received();
    expect(events.map((e) => e.type)).toEqual(['run.completed']);
    const run = (await t.api.get(`/runs/${runId}`)).body;
    expect(run.status).toBe('COMPLETED');
    // The run as it reads, but for the human labels the read adds (none yet) to each metric.
    expect(run.metrics.map((m: { labels: number; corrected: unknown }) => [m.labels, m.corrected])).toEqual([
      [0, null],
    ]);
    const withoutLabels = run.metrics.map(({ labels: _l, corrected: _c, ...m }: Record<string, unknown>) => m);
    expect(events[0]!.data).toEqual({ ...run, metrics: withoutLabels });
    expect((await t.api.get(`/webhooks/${t.webhookId}/deliveries`)).headers['x-total-count']).toBe('1');
  });

  it('sends run.failed when no session completed, and nothing to an endpoint not subscribed', {
    timeout: 90_000,
  }, async () => {
    const t = await tenantWithWebhook(['run.failed']);
    const other = await t.api.post('/webhooks', {
      url: `${receiver.url}/${t.org.id}-other`,
      events: ['run.completed'],
    });
    agent.setHandler((_req, res) => sendJson(res, 400, { error: 'nope' }));
    const runId = await runOnce(t);
    await deliver();
    expect(t.received().map((e) => [e.type, e.data.id, e.data.status])).toEqual([['run.failed', runId, 'FAILED']]);
    expect((await t.api.get(`/webhooks/${other.body.id}/deliveries`)).body).toEqual([]);
  });
});

describe('events of monitors', () => {
  async function monitorOf(t: Awaited<ReturnType<typeof tenantWithWebhook>>) {
    const product = await createProduct(t.api);
    const version = await createVersion(t.api, product.id);
    const res = await t.api.post('/monitors', {
      productId: product.id,
      name: 'quality',
      metricGroupIds: ['mgrp_is_json'],
      samplingPercentage: 100,
    });
    expect(res.status).toBe(201);
    const session = async (output: string) => {
      const s = (await t.api.post('/sessions', { versionId: version.id })).body;
      await t.api.post('/inferenceResults', { sessionId: s.id, input: 'q', output });
      await t.api.patch(`/sessions/${s.id}`, { status: 'COMPLETED' });
    };
    return { monitor: res.body as { id: string }, session };
  }

  it('sends monitor.status_changed once per change by a user', async () => {
    const t = await tenantWithWebhook(['monitor.status_changed']);
    const { monitor } = await monitorOf(t);
    expect((await t.api.patch(`/monitors/${monitor.id}`, { status: 'PAUSED' })).status).toBe(200);
    expect((await t.api.patch(`/monitors/${monitor.id}`, { status: 'PAUSED', name: 'renamed' })).status).toBe(200);
    expect((await t.api.patch(`/monitors/${monitor.id}`, { status: 'ACTIVE' })).status).toBe(200);
    await deliver(true);
    // Deliveries run in parallel: the two events may arrive in either order.
    const received = t
      .received()
      .map((e) => [e.data.previousStatus, e.data.status, e.data.changedBy, e.data.monitor.id]);
    expect(received).toHaveLength(2);
    expect(received).toEqual(
      expect.arrayContaining([
        ['ACTIVE', 'PAUSED', 'user', monitor.id],
        ['PAUSED', 'ACTIVE', 'user', monitor.id],
      ]),
    );
  });

  it('sends monitor.status_changed once when the scanner moves a monitor, however often it runs', async () => {
    const t = await tenantWithWebhook(['monitor.status_changed'], { monthlyCredits: 0 });
    const { monitor } = await monitorOf(t);
    await runScanner();
    await runScanner();
    await deliver(true);
    expect((await t.api.get(`/monitors/${monitor.id}`)).body.status).toBe('NO_CREDITS');
    expect(t.received().map((e) => [e.data.previousStatus, e.data.status, e.data.changedBy])).toEqual([
      ['ACTIVE', 'NO_CREDITS', 'system'],
    ]);
  });

  it('opens an alert at exactly minSessions sessions below the threshold, and resolves it when the score is back, once each', async () => {
    const t = await tenantWithWebhook(['alert.opened', 'alert.resolved']);
    const { monitor, session } = await monitorOf(t);
    const rule = await t.api.post(`/monitors/${monitor.id}/alertRules`, {
      metricGroupId: 'mgrp_is_json',
      window: '15m',
      below: 0.5,
      minSessions: 3,
    });
    expect(rule.status).toBe(201);
    expect(rule.body).toMatchObject({
      metricGroupId: 'mgrp_is_json',
      window: '15m',
      below: 0.5,
      minSessions: 3,
      confidence: 'point',
      openAlertId: null,
      monitorId: monitor.id,
    });
    // The failing sessions 20 minutes in the past, the passing ones at the real now: other test files
    // run the scanner at the real now over every monitor, so a window they see never holds the failing
    // sessions (and the scanner here never runs past the real now, where others' sessions would look idle).
    const t0 = Date.now() - 20 * 60_000;
    vi.spyOn(clock, 'now').mockImplementation(() => new Date(t0));
    const evaluate = () => drainLocalQueue((e) => evaluator(e) as Promise<unknown>);

    // Two failing sessions: below, but fewer than minSessions.
    await session('not json');
    await session('still not json');
    await evaluate();
    await runScanner(new Date(t0 + 1_000));
    expect((await t.api.get(`/monitors/${monitor.id}/alerts`)).body).toEqual([]);

    // The third session scores 1: score 1/3 over exactly 3 sessions, below 0.5: opens once.
    await session('{"ok":true}');
    await evaluate();
    await runScanner(new Date(t0 + 60_000));
    await runScanner(new Date(t0 + 120_000));
    let alerts = (await t.api.get(`/monitors/${monitor.id}/alerts`)).body;
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({
      status: 'OPEN',
      ruleId: rule.body.id,
      scoredSessions: 3,
      below: 0.5,
      window: '15m',
      resolvedAt: null,
      resolution: null,
      confidence: 'point',
      // fewer than 30 sessions: no interval
      interval: null,
    });
    expect(alerts[0].score).toBeCloseTo(1 / 3, 10);
    expect((await t.api.get(`/monitors/${monitor.id}/alertRules`)).body[0].openAlertId).toBe(alerts[0].id);
    await deliver(true);
    expect(t.received().map((e) => [e.type, e.data.id, e.data.status])).toEqual([
      ['alert.opened', alerts[0].id, 'OPEN'],
    ]);

    // 20 minutes later (the real now) the window holds three passing sessions only: score 1, at or above below: resolves once.
    const t1 = Math.max(Date.now(), t0 + 16 * 60_000);
    vi.spyOn(clock, 'now').mockImplementation(() => new Date(t1));
    for (let i = 0; i < 3; i++) await session(`{"n":${i}}`);
    await evaluate();
    await runScanner(new Date(t1 + 30_000));
    await runScanner(new Date(t1 + 60_000));
    alerts = (await t.api.get(`/monitors/${monitor.id}/alerts`)).body;
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ status: 'RESOLVED', resolution: 'recovered', resolvedScore: 1 });
    // Resolved by the first scan that sees the passing sessions: this file's at t1 + 30 s, or another
    // file's scanner at the real now (it scans every monitor), whichever ran first.
    expect(Date.parse(alerts[0].resolvedAt)).toBeGreaterThanOrEqual(t1);
    expect(Date.parse(alerts[0].resolvedAt)).toBeLessThanOrEqual(Math.max(t1 + 30_000, Date.now()));
    expect((await t.api.get(`/monitors/${monitor.id}/alerts`, { statuses: 'OPEN' })).body).toEqual([]);

    await deliver(true);
    const events = t.received();
    expect(events.map((e) => [e.type, e.data.id, e.data.status])).toEqual([
      ['alert.opened', alerts[0].id, 'OPEN'],
      ['alert.resolved', alerts[0].id, 'RESOLVED'],
    ]);
  });

  // 53 sessions scored one by one: slow on a loaded machine.
  it('opens an interval rule’s alert only once the upper end of the 95% interval is below, with score, interval and scoredSessions', {
    timeout: 90_000,
  }, async () => {
    const t = await tenantWithWebhook(['alert.opened', 'alert.resolved']);
    const { monitor, session } = await monitorOf(t);
    const body = { metricGroupId: 'mgrp_is_json', window: '15m', below: 0.5, minSessions: 3 };
    const created = await t.api.post(`/monitors/${monitor.id}/alertRules`, { ...body, confidence: 'interval' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ ...body, confidence: 'interval', openAlertId: null });
    expect((await t.api.get(`/monitors/${monitor.id}/alertRules/${created.body.id}`)).body.confidence).toBe('interval');
    // A point rule alike, for contrast.
    const pointRule = (await t.api.post(`/monitors/${monitor.id}/alertRules`, { ...body, confidence: 'point' })).body;
    expect(pointRule.confidence).toBe('point');

    // 20 minutes in the past, as in the test above (other files' scanners run at the real now).
    const t0 = Date.now() - 20 * 60_000;
    vi.spyOn(clock, 'now').mockImplementation(() => new Date(t0));
    const evaluate = () => drainLocalQueue((e) => evaluator(e) as Promise<unknown>);
    const sessions = async (output: string, count: number) => {
      for (let i = 0; i < count; i += 10)
        await Promise.all(Array.from({ length: Math.min(10, count - i) }, () => session(output)));
    };
    const alertsOf = async (ruleId: string) =>
      (await t.api.get(`/monitors/${monitor.id}/alerts`, { ruleIds: ruleId })).body as any[];

    // 29 sessions, 9 answering JSON: score 0.31, below 0.5, but under 30 sessions there is no interval.
    await sessions('{"ok":true}', 9);
    await sessions('not json', 20);
    await evaluate();
    await runScanner(new Date(t0 + 1_000));
    expect(await alertsOf(created.body.id)).toEqual([]);
    const [pointAlert] = await alertsOf(pointRule.id);
    expect(pointAlert).toMatchObject({ confidence: 'point', status: 'OPEN', scoredSessions: 29, interval: null });

    // 40 sessions, 18 answering JSON: score 0.45, below 0.5, but the interval's upper end 0.606 is not.
    await sessions('{"ok":true}', 9);
    await sessions('not json', 2);
    await evaluate();
    await runScanner(new Date(t0 + 2_000));
    expect(await alertsOf(created.body.id)).toEqual([]);

    // 50 sessions, 18 answering JSON: score 0.36, the upper end 0.36 + 1.96·√(0.2304/49) = 0.494 is below.
    await sessions('not json', 10);
    await evaluate();
    await runScanner(new Date(t0 + 3_000));
    await runScanner(new Date(t0 + 4_000));
    const [alert] = await alertsOf(created.body.id);
    expect(alert).toMatchObject({
      ruleId: created.body.id,
      confidence: 'interval',
      status: 'OPEN',
      scoredSessions: 50,
      below: 0.5,
      resolution: null,
    });
    expect(alert.score).toBeCloseTo(0.36, 10);
    expect(Object.keys(alert.interval).sort()).toEqual(['lower', 'upper']);
    expect(alert.interval.upper).toBeCloseTo(0.36 + 1.96 * Math.sqrt((0.36 * 0.64) / 49), 10);
    expect(alert.interval.upper).toBeLessThan(0.5);
    expect((await t.api.get(`/monitors/${monitor.id}/alertRules/${created.body.id}`)).body.openAlertId).toBe(alert.id);
    // The same interval as the results route's headline over the same 50 sessions.
    await runAggregator();
    const results = (await t.api.get(`/monitors/${monitor.id}/results`, { days: 1 })).body;
    const headline = results.metrics[0].headline;
    expect(headline.scoredSessions).toBe(50);
    expect(alert.interval.lower).toBeCloseTo(headline.confidenceInterval.lower, 12);
    expect(alert.interval.upper).toBeCloseTo(headline.confidenceInterval.upper, 12);
    await deliver(true);
    const opened = t.received().filter((e) => e.type === 'alert.opened');
    expect(opened.map((e) => e.data.id)).toEqual(expect.arrayContaining([pointAlert.id, alert.id]));
    expect(opened.find((e) => e.data.id === alert.id)!.data).toEqual(alert);

    // At the real now the window holds 3 sessions answering JSON: no interval, but the score 1 is
    // back above below over minSessions sessions: both rules' alerts resolve.
    const t1 = Math.max(Date.now(), t0 + 16 * 60_000);
    vi.spyOn(clock, 'now').mockImplementation(() => new Date(t1));
    await sessions('{"n":1}', 3);
    await evaluate();
    await runScanner(new Date(t1 + 30_000));
    for (const ruleId of [created.body.id, pointRule.id])
      expect(await alertsOf(ruleId)).toEqual([
        expect.objectContaining({ status: 'RESOLVED', resolution: 'recovered', resolvedScore: 1 }),
      ]);
    await deliver();
    const resolved = t.received().filter((e) => e.type === 'alert.resolved');
    expect(resolved.find((e) => e.data.id === alert.id)!.data).toMatchObject({
      confidence: 'interval',
      interval: alert.interval,
      scoredSessions: 50,
    });
  });

  it('resolves an open alert when its rule is deleted, and sends alert.resolved', async () => {
    const t = await tenantWithWebhook(['alert.resolved']);
    const { monitor, session } = await monitorOf(t);
    const rule = (
      await t.api.post(`/monitors/${monitor.id}/alertRules`, {
        metricGroupId: 'mgrp_is_json',
        window: '15m',
        below: 1,
        minSessions: 1,
      })
    ).body;
    await session('nope');
    await drainLocalQueue((e) => evaluator(e) as Promise<unknown>);
    await runScanner();
    const [alert] = (await t.api.get(`/monitors/${monitor.id}/alerts`)).body;
    expect(alert.status).toBe('OPEN');
    // An alert stored before alerts had a confidence and an interval reads as a point rule's, without one.
    await removeAttributes(keys.alert(monitor.id, alert.id), ['confidence', 'interval']);
    expect((await t.api.get(`/monitors/${monitor.id}/alerts`)).body[0]).toEqual({
      ...alert,
      confidence: 'point',
      interval: null,
    });
    const del = await t.api.del(`/monitors/${monitor.id}/alertRules/${rule.id}`);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ id: rule.id, deletedAt: expect.any(String) });
    expect((await t.api.get(`/monitors/${monitor.id}/alerts`)).body[0]).toMatchObject({
      status: 'RESOLVED',
      resolution: 'rule_deleted',
      resolvedScore: null,
    });
    expect((await t.api.get(`/monitors/${monitor.id}/alertRules`)).body).toEqual([]);
    // Read by id, a deleted rule shows when it was deleted; its alert is no longer open on it.
    expect((await t.api.get(`/monitors/${monitor.id}/alertRules/${rule.id}`)).body).toMatchObject({
      id: rule.id,
      openAlertId: null,
      deletedAt: del.body.deletedAt,
    });
    expect((await t.api.del(`/monitors/${monitor.id}/alertRules/${rule.id}`)).status).toBe(404);
    await deliver();
    expect(t.received().map((e) => [e.type, e.data.resolution])).toEqual([['alert.resolved', 'rule_deleted']]);
    expect(t.received()[0]!.data).toMatchObject({ confidence: 'point', interval: null });
  });
});

describe('alert rule routes', () => {
  it('validates rules, pages them, and keeps them to the monitor’s organization', async () => {
    const t = await newTenant();
    const product = await createProduct(t.api);
    const monitor = (
      await t.api.post('/monitors', {
        productId: product.id,
        name: 'q',
        metricGroupIds: ['mgrp_is_json'],
        samplingPercentage: 100,
      })
    ).body;
    const base = { metricGroupId: 'mgrp_is_json', window: '6h', below: 0.8, minSessions: 10 };
    const bad: [Record<string, unknown>, RegExp][] = [
      [{ ...base, window: '2h' }, /window/],
      [{ ...base, below: 1.5 }, /below/],
      [{ ...base, below: -0.1 }, /below/],
      [{ ...base, minSessions: 0 }, /minSessions/],
      [{ ...base, minSessions: 2.5 }, /minSessions/],
      [
        { ...base, metricGroupId: 'mgrp_no_pii' },
        /metricGroupId mgrp_no_pii is not one of the monitor's metricGroupIds/,
      ],
      [{ window: '1h', below: 0.5, minSessions: 1 }, /metricGroupId/],
      [{ ...base, openAlertId: 'x' }, /openAlertId/],
      [{ ...base, confidence: 'high' }, /confidence/],
      [{ ...base, confidence: null }, /confidence/],
      [{ ...base, confidence: 'Interval' }, /confidence/],
    ];
    for (const [body, message] of bad) {
      const res = await t.api.post(`/monitors/${monitor.id}/alertRules`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message).toMatch(message);
    }
    const badConfidence = await t.api.post(`/monitors/${monitor.id}/alertRules`, { ...base, confidence: 'high' });
    expect(badConfidence.body).toEqual({ error: 'Bad Request', message: 'confidence must be one of: point, interval' });
    for (const window of ['15m', '1h', '24h'])
      expect((await t.api.post(`/monitors/${monitor.id}/alertRules`, { ...base, window })).status).toBe(201);
    const page = await t.api.get(`/monitors/${monitor.id}/alertRules`, { limit: 2, sort: 'createdAt:asc' });
    expect(page.headers['x-total-count']).toBe('3');
    const one = await t.api.get(`/monitors/${monitor.id}/alertRules/${page.body[0].id}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(page.body[0]);
    // Without a confidence a rule is a point rule; one stored before rules had one reads as such.
    expect(one.body.confidence).toBe('point');
    await removeAttributes(keys.alertRule(monitor.id, one.body.id), ['confidence']);
    expect((await t.api.get(`/monitors/${monitor.id}/alertRules/${one.body.id}`)).body).toEqual(one.body);
    expect((await t.api.get(`/monitors/${monitor.id}/alertRules/alr_01NOSUCHRULE`)).status).toBe(404);
    expect((await t.api.get(`/monitors/${monitor.id}/alertRules/bad%20id`)).status).toBe(400);
    expect(page.body.map((r: { window: string }) => r.window)).toEqual(['15m', '1h']);
    expect((await t.api.get(`/monitors/${monitor.id}/alertRules`, { limit: 0 })).status).toBe(400);
    // The common list parameters these records have: ids, fromCreatedAt, toCreatedAt.
    const byIds = await t.api.get(`/monitors/${monitor.id}/alertRules`, { ids: `${page.body[1].id},alr_01NOSUCHRULE` });
    expect(byIds.body.map((r: { id: string }) => r.id)).toEqual([page.body[1].id]);
    const since = await t.api.get(`/monitors/${monitor.id}/alertRules`, {
      fromCreatedAt: page.body[1].createdAt,
      sort: 'createdAt:asc',
    });
    expect(since.body.map((r: { window: string }) => r.window)).toEqual(expect.arrayContaining(['1h', '24h']));
    expect(since.body.every((r: { createdAt: string }) => r.createdAt >= page.body[1].createdAt)).toBe(true);
    const until = await t.api.get(`/monitors/${monitor.id}/alertRules`, { toCreatedAt: page.body[0].createdAt });
    expect(until.body.map((r: { window: string }) => r.window)).toContain('15m');
    expect(until.body.every((r: { createdAt: string }) => r.createdAt <= page.body[0].createdAt)).toBe(true);
    expect(
      (
        await t.api.get(`/monitors/${monitor.id}/alerts`, {
          ids: 'alert_01NONE',
          fromCreatedAt: page.body[0].createdAt,
        })
      ).body,
    ).toEqual([]);
    expect((await t.api.get(`/monitors/${monitor.id}/alerts`, { fromCreatedAt: 'yesterday' })).status).toBe(400);
    expect((await t.api.get(`/monitors/${monitor.id}/alerts`, { statuses: 'MAYBE' })).status).toBe(400);

    const other = await newTenant();
    expect((await other.api.post(`/monitors/${monitor.id}/alertRules`, base)).status).toBe(403);
    expect((await other.api.get(`/monitors/${monitor.id}/alertRules`)).status).toBe(403);
    expect((await other.api.get(`/monitors/${monitor.id}/alerts`)).status).toBe(403);
    expect((await other.api.del(`/monitors/${monitor.id}/alertRules/${page.body[0].id}`)).status).toBe(403);
    expect((await other.api.get(`/monitors/${monitor.id}/alertRules/${page.body[0].id}`)).status).toBe(403);
    expect((await t.api.del(`/monitors/${monitor.id}/alertRules/alr_01NOSUCHRULE`)).status).toBe(404);
    expect((await t.api.get('/monitors/mon_01NOSUCHMONITOR/alerts')).status).toBe(404);

    await t.api.del(`/monitors/${monitor.id}`);
    expect((await t.api.get(`/monitors/${monitor.id}/alertRules`)).status).toBe(404);
    expect((await t.api.post(`/monitors/${monitor.id}/alertRules`, base)).status).toBe(404);
  });
});
