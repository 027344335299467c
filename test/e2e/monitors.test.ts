import { describe, expect, it } from 'vitest';
import { isSampled, passesFilters } from '../../shared/domain/monitors/sampling.js';
import { e2eApi, expectStatus } from '../support/typed-api.js';
import type { Schema } from '../../console/src/api/client.js';

const api = e2eApi();

async function inBatches<T>(items: T[], size: number, fn: (item: T) => Promise<void>) {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(fn));
}

describe('a monitor over HTTP on the local server', () => {
  it('samples 200 production sessions at 50% with a filter and reports the expected counts and scores', async () => {
    const product = await expectStatus(api.POST('/products', { body: { name: 'monitored bot' } }), 201);
    const version = await expectStatus(api.POST('/versions', { body: { productId: product.id, name: 'v1' } }), 201);
    const monitor = await expectStatus(
      api.POST('/monitors', {
        body: {
          productId: product.id,
          name: 'refund quality',
          metricGroupIds: ['mgrp_is_json', 'mgrp_non_empty_output'],
          samplingPercentage: 50,
          filterQuery: 'refund',
          filterTarget: 'INPUT',
        },
      }),
      201,
    );
    expect(monitor.id).toMatch(/^mon_/);
    const plan = Array.from({ length: 200 }, (_, i) => ({
      input: i % 2 === 0 ? `I need a refund for order ${i}` : `Where is order ${i}?`,
      output: i % 3 === 0 ? `{"order": ${i}}` : `Order ${i} is on its way.`,
    }));
    const sessions: { id: string; input: string; output: string }[] = [];
    await inBatches(plan, 10, async (p) => {
      const s = await expectStatus(api.POST('/sessions', { body: { versionId: version.id } }), 201);
      await expectStatus(
        api.POST('/inferenceResults', { body: { sessionId: s.id, input: p.input, output: p.output } }),
        201,
      );
      sessions.push({ id: s.id, ...p });
    });
    await inBatches(sessions, 10, async (s) => {
      await expectStatus(
        api.PATCH('/sessions/{id}', { params: { path: { id: s.id } }, body: { status: 'COMPLETED' } }),
        200,
      );
    });
    const watched = sessions.filter(
      (s) =>
        isSampled(monitor.id, s.id, 50) &&
        passesFilters({ filterQuery: 'refund', filterTarget: 'INPUT', excludeQuery: null, excludeTarget: null }, [
          { input: s.input, output: s.output },
        ]),
    );
    const expectedJson = watched.filter((s) => s.output.startsWith('{')).length / watched.length;
    expect(watched.length).toBeGreaterThan(30);

    // the in-process queue, scanner (every second here) and aggregator do the rest
    let results: Schema<'MonitorResults'> | undefined;
    const deadline = Date.now() + 45_000;
    while (Date.now() < deadline) {
      results = await expectStatus(
        api.GET('/monitors/{id}/results', { params: { path: { id: monitor.id }, query: { days: 3 } } }),
        200,
      );
      if (results.metrics.every((m) => m.headline.scoredSessions === watched.length)) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    if (!results) throw new Error('no results');
    const byGroup = Object.fromEntries(results.metrics.map((m) => [m.metricGroupId, m]));
    const isJson = byGroup.mgrp_is_json!;
    expect(isJson.headline).toMatchObject({ scoredSessions: watched.length, collectingData: false });
    expect(isJson.headline.score).toBeCloseTo(expectedJson, 10);
    expect(isJson.headline.confidenceInterval!.lower).toBeLessThanOrEqual(expectedJson);
    expect(byGroup.mgrp_non_empty_output!.headline.score).toBe(1);
    expect(results.worstMetric!.metricGroupId).toBe('mgrp_is_json');
    expect(isJson.buckets).toHaveLength(3);
    expect(isJson.buckets[2]!.scoredSessions).toBe(watched.length);
    expect(results.sessions.scored).toHaveLength(Math.min(200, watched.length));
    expect(results.sessions.waiting).toEqual([]);
    expect(results.spend).toMatchObject({ spentCredits: 0, capCredits: null });

    // alert rules with confidence "interval": one below the upper end of the headline's interval opens an
    // alert carrying the same interval; one between the score and that upper end stays closed
    const ci = isJson.headline.confidenceInterval!;
    const rules = { params: { path: { id: monitor.id } } };
    const base = { metricGroupId: 'mgrp_is_json', window: '1h', minSessions: 5, confidence: 'interval' } as const;
    const bad = await api.POST('/monitors/{id}/alertRules', {
      ...rules,
      body: { ...base, below: 0.9, confidence: 'likely' as 'interval' },
    });
    expect(bad.response.status).toBe(400);
    expect(bad.error).toEqual({ error: 'Bad Request', message: 'confidence must be one of: point, interval' });
    const firing = await expectStatus(
      api.POST('/monitors/{id}/alertRules', { ...rules, body: { ...base, below: Math.min(1, ci.upper + 0.01) } }),
      201,
    );
    expect(firing.confidence).toBe('interval');
    const quiet = await expectStatus(
      api.POST('/monitors/{id}/alertRules', { ...rules, body: { ...base, below: (expectedJson + ci.upper) / 2 } }),
      201,
    );
    expect(quiet).toMatchObject({ confidence: 'interval', openAlertId: null });
    const listAlerts = () => expectStatus(api.GET('/monitors/{id}/alerts', rules), 200);
    let alerts = await listAlerts();
    const alertDeadline = Date.now() + 20_000;
    while (alerts.length === 0 && Date.now() < alertDeadline) {
      await new Promise((r) => setTimeout(r, 500));
      alerts = await listAlerts();
    }
    // a later scan (every second) decides the quiet rule again on the same sessions
    await new Promise((r) => setTimeout(r, 2_500));
    alerts = await listAlerts();
    expect(alerts).toHaveLength(1);
    const [alert] = alerts;
    expect(alert).toMatchObject({ ruleId: firing.id, confidence: 'interval', scoredSessions: watched.length });
    expect(alert!.score).toBeCloseTo(expectedJson, 10);
    expect(alert!.interval!.lower).toBeCloseTo(ci.lower, 12);
    expect(alert!.interval!.upper).toBeCloseTo(ci.upper, 12);

    // a sampling change shows as a marker
    await expectStatus(
      api.PATCH('/monitors/{id}', { params: { path: { id: monitor.id } }, body: { samplingPercentage: 20 } }),
      200,
    );
    const after = await expectStatus(api.GET('/monitors/{id}/results', { params: { path: { id: monitor.id } } }), 200);
    expect(after.markers.samplingChanges).toEqual([{ at: expect.any(String), samplingPercentage: 20 }]);
  }, 90_000);
});
