import { describe, expect, it } from 'vitest';
import {
  asMonitorResults,
  familyMarkers,
  familySeries,
  href,
  parseRoute,
  runDone,
  spanTree,
  spendShare,
  spendText,
  UnexpectedAnswerError,
  type MonitorResults,
  type Span,
} from '../../console/src/view-models.js';

const point = (scoredSessions: number, score: number | null, ci: { lower: number; upper: number } | null = null) => ({
  scoredSessions,
  score,
  confidenceInterval: ci,
  collectingData: scoredSessions < 30,
});

describe('console routes', () => {
  it('reads every page from the hash, with its parameters, and writes it back', () => {
    expect(parseRoute('')).toEqual({ page: 'monitors', offset: 0 });
    expect(parseRoute('#/')).toEqual({ page: 'monitors', offset: 0 });
    expect(parseRoute('#/monitors?offset=25')).toEqual({ page: 'monitors', offset: 25 });
    expect(parseRoute('#/monitors/mon_1')).toEqual({ page: 'monitor', id: 'mon_1', days: 7 });
    expect(parseRoute('#/monitors/mon_1?days=30')).toEqual({ page: 'monitor', id: 'mon_1', days: 30 });
    expect(parseRoute('#/runs')).toEqual({ page: 'runs', offset: 0 });
    expect(parseRoute('#/runs/run_1?offset=50')).toEqual({ page: 'run', id: 'run_1', offset: 50 });
    expect(parseRoute('#/sessions/sess_1')).toEqual({ page: 'session', id: 'sess_1' });
    for (const route of [
      { page: 'monitor', id: 'mon_1', days: 30 },
      { page: 'run', id: 'run_1', offset: 50 },
      { page: 'session', id: 'sess 1' },
      { page: 'runs', offset: 0 },
    ] as const) {
      expect(parseRoute(href(route))).toEqual(route);
    }
  });

  it('falls back to the defaults for out-of-range parameters and names unknown pages', () => {
    expect(parseRoute('#/monitors/mon_1?days=91')).toEqual({ page: 'monitor', id: 'mon_1', days: 7 });
    expect(parseRoute('#/monitors/mon_1?days=-1')).toEqual({ page: 'monitor', id: 'mon_1', days: 7 });
    expect(parseRoute('#/runs?offset=abc')).toEqual({ page: 'runs', offset: 0 });
    expect(parseRoute('#/sessions')).toEqual({ page: 'unknown', path: '/sessions' });
    expect(parseRoute('#/monitors/mon_1/extra')).toEqual({ page: 'unknown', path: '/monitors/mon_1/extra' });
  });
});

describe('monitor results views', () => {
  const results: MonitorResults = {
    monitorId: 'mon_1',
    range: { from: '2026-11-22T00:00:00.000Z', to: '2026-11-24T08:00:00.000Z', bucketDays: 1 },
    metrics: [
      {
        metricGroupId: 'mgrp_a',
        name: 'a',
        headline: point(42, 0.6, { lower: 0.5, upper: 0.7 }),
        buckets: [
          { ...point(0, null), bucket: '2026-11-22T00:00:00.000Z' },
          { ...point(12, 0.4), bucket: '2026-11-23T00:00:00.000Z' },
          { ...point(30, 0.7, { lower: 0.55, upper: 0.85 }), bucket: '2026-11-24T00:00:00.000Z' },
        ],
      },
    ],
    worstMetric: null,
    markers: {
      metricRevisions: [
        { metricGroupId: 'mgrp_b', name: 'b', metricId: 'met_b2', at: '2026-11-23T05:00:00.000Z' },
        { metricGroupId: 'mgrp_a', name: 'a', metricId: 'met_a2', at: '2026-11-23T06:00:00.000Z' },
      ],
      samplingChanges: [{ at: '2026-11-22T09:00:00.000Z', samplingPercentage: 12.5 }],
    },
    spend: { spentCredits: 30, pendingCredits: 5, capCredits: 50, cycleStart: '2026-11-01T00:00:00.000Z' },
    sessions: { scored: [], waiting: [] },
  };

  it('turns buckets into aligned chart series: x in seconds, the score, the interval, and collecting-data days', () => {
    expect(familySeries(results.metrics[0]!)).toEqual({
      x: [Date.UTC(2026, 10, 22) / 1000, Date.UTC(2026, 10, 23) / 1000, Date.UTC(2026, 10, 24) / 1000],
      score: [null, 0.4, 0.7],
      lower: [null, null, 0.55],
      upper: [null, null, 0.85],
      collecting: [null, 0.4, null],
    });
  });

  it("keeps a family's own revisions and every sampling change as markers, oldest first", () => {
    expect(familyMarkers(results, 'mgrp_a')).toEqual([
      { kind: 'sampling', at: Date.parse('2026-11-22T09:00:00.000Z') / 1000, label: 'sampling set to 12.5%' },
      { kind: 'revision', at: Date.parse('2026-11-23T06:00:00.000Z') / 1000, label: 'new revision met_a2 of a' },
    ]);
  });

  it('states spend against the cap, pending included', () => {
    expect(spendText(results.spend)).toBe('30 of 50 credits (5 pending)');
    expect(spendShare(results.spend)).toBe(0.7);
    expect(spendText({ spentCredits: 3, pendingCredits: 0, capCredits: null })).toBe('3 credits, no cap');
    expect(spendShare({ spentCredits: 3, pendingCredits: 0, capCredits: null })).toBeNull();
    expect(spendShare({ spentCredits: 60, pendingCredits: 0, capCredits: 50 })).toBe(1);
  });

  it('refuses an answer without the fields the page reads, naming them', () => {
    expect(asMonitorResults(results)).toBe(results);
    expect(() => asMonitorResults({ monitorId: 'mon_1', metrics: [] })).toThrow(
      new UnexpectedAnswerError('the monitor results answer lacks range, worstMetric, markers, spend, sessions'),
    );
    expect(() => asMonitorResults([])).toThrow(UnexpectedAnswerError);
  });
});

describe('run progress', () => {
  it('is the share of finished sessions', () => {
    expect(runDone({ progress: { total: 4, pending: 1, running: 1, completed: 1, failed: 1 } })).toBe(0.5);
    expect(runDone({ progress: { total: 0, pending: 0, running: 0, completed: 0, failed: 0 } })).toBe(0);
  });
});

describe('span tree', () => {
  const span = (
    id: string,
    parentTraceId: string | null,
    start: number | null,
    end: number | null,
    extra: Partial<Span> = {},
  ): Span => ({
    id,
    inferenceResultId: 'inf_1',
    name: id,
    type: 'SPAN',
    description: null,
    inputData: null,
    outputData: null,
    error: null,
    latencyMs: null,
    parentTraceId,
    startTime: start === null ? null : new Date(Date.UTC(2026, 0, 1) + start).toISOString(),
    endTime: end === null ? null : new Date(Date.UTC(2026, 0, 1) + end).toISOString(),
    createdAt: '2026-01-01T00:00:00.000Z',
    ...extra,
  });

  it('nests children under parents, orders siblings by start, and times each from the first start', () => {
    const { roots, totalMs } = spanTree([
      span('trace_c', 'trace_a', 400, 900),
      span('trace_b', 'trace_a', 100, 300),
      span('trace_a', null, 0, 1000),
      span('trace_d', 'trace_c', 500, null, { latencyMs: 50 }),
    ]);
    const flat = (nodes: typeof roots): [string, number, number | null, number | null][] =>
      nodes.flatMap((n) => [
        [n.span.id, n.depth, n.offsetMs, n.durationMs] as [string, number, number | null, number | null],
        ...flat(n.children),
      ]);
    expect(flat(roots)).toEqual([
      ['trace_a', 0, 0, 1000],
      ['trace_b', 1, 100, 200],
      ['trace_c', 1, 400, 500],
      ['trace_d', 2, 500, 50],
    ]);
    expect(totalMs).toBe(1000);
  });

  it('makes a span whose parent is missing, or that closes a cycle, a root', () => {
    const { roots } = spanTree([
      span('trace_x', 'trace_gone', null, null),
      span('trace_p', 'trace_q', 0, 10),
      span('trace_q', 'trace_p', 5, 10),
    ]);
    expect(roots.map((r) => r.span.id).sort()).toEqual(['trace_p', 'trace_q', 'trace_x']);
    expect(roots.find((r) => r.span.id === 'trace_x')).toMatchObject({ offsetMs: null, durationMs: null });
  });
});
