import { describe, expect, it, inject } from 'vitest';
import { isSampled, passesFilters } from '../../shared/domain/monitors/sampling.js';
import { jsonClient } from '../support/http-client.js';

const base = inject('serverUrl');
const key = inject('demoApiKey');

const http = jsonClient(base, key);

async function inBatches<T>(items: T[], size: number, fn: (item: T) => Promise<void>) {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(fn));
}

describe('a monitor over HTTP on the local server', () => {
  it('samples 200 production sessions at 50% with a filter and reports the expected counts and scores', async () => {
    const product = (await http('POST', '/products', { name: 'monitored bot' })).body;
    const version = (await http('POST', '/versions', { productId: product.id, name: 'v1' })).body;
    const monitor = (
      await http('POST', '/monitors', {
        productId: product.id,
        name: 'refund quality',
        metricGroupIds: ['mgrp_is_json', 'mgrp_non_empty_output'],
        samplingPercentage: 50,
        filterQuery: 'refund',
        filterTarget: 'INPUT',
      })
    ).body;
    expect(monitor.id).toMatch(/^mon_/);
    const plan = Array.from({ length: 200 }, (_, i) => ({
      input: i % 2 === 0 ? `I need a refund for order ${i}` : `Where is order ${i}?`,
      output: i % 3 === 0 ? `{"order": ${i}}` : `Order ${i} is on its way.`,
    }));
    const sessions: { id: string; input: string; output: string }[] = [];
    await inBatches(plan, 10, async (p) => {
      const s = (await http('POST', '/sessions', { versionId: version.id })).body;
      expect((await http('POST', '/inferenceResults', { sessionId: s.id, input: p.input, output: p.output })).status).toBe(201);
      sessions.push({ id: s.id, ...p });
    });
    await inBatches(sessions, 10, async (s) => {
      expect((await http('PATCH', `/sessions/${s.id}`, { status: 'COMPLETED' })).status).toBe(200);
    });
    const watched = sessions.filter(
      (s) => isSampled(monitor.id, s.id, 50) && passesFilters({ filterQuery: 'refund', filterTarget: 'INPUT', excludeQuery: null, excludeTarget: null }, [{ input: s.input, output: s.output }]),
    );
    const expectedJson = watched.filter((s) => s.output.startsWith('{')).length / watched.length;
    expect(watched.length).toBeGreaterThan(30);

    // the in-process queue, scanner (every second here) and aggregator do the rest
    let results: any;
    const deadline = Date.now() + 45_000;
    while (Date.now() < deadline) {
      results = (await http('GET', `/monitors/${monitor.id}/results?days=3`)).body;
      if (results.metrics.every((m: { headline: { scoredSessions: number } }) => m.headline.scoredSessions === watched.length)) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    const byGroup = Object.fromEntries(results.metrics.map((m: { metricGroupId: string }) => [m.metricGroupId, m]));
    expect(byGroup.mgrp_is_json.headline).toMatchObject({ scoredSessions: watched.length, collectingData: false });
    expect(byGroup.mgrp_is_json.headline.score).toBeCloseTo(expectedJson, 10);
    expect(byGroup.mgrp_is_json.headline.confidenceInterval.lower).toBeLessThanOrEqual(expectedJson);
    expect(byGroup.mgrp_non_empty_output.headline.score).toBe(1);
    expect(results.worstMetric.metricGroupId).toBe('mgrp_is_json');
    expect(byGroup.mgrp_is_json.buckets).toHaveLength(3);
    expect(byGroup.mgrp_is_json.buckets[2].scoredSessions).toBe(watched.length);
    expect(results.sessions.scored).toHaveLength(Math.min(200, watched.length));
    expect(results.sessions.waiting).toEqual([]);
    expect(results.spend).toMatchObject({ spentCredits: 0, capCredits: null });

    // a sampling change shows as a marker
    await http('PATCH', `/monitors/${monitor.id}`, { samplingPercentage: 20 });
    const after = (await http('GET', `/monitors/${monitor.id}/results`)).body;
    expect(after.markers.samplingChanges).toEqual([{ at: expect.any(String), samplingPercentage: 20 }]);
  }, 90_000);
});
