import { describe, expect, it } from 'vitest';
import { createApiClient } from '../../console/src/api/client.js';
import { ApiError, resources } from '../../console/src/api/resources.js';
import { forgetKey, isRemembered, KEY_ITEM, readKey, saveKey, type KeyStorage } from '../../console/src/key-store.js';
import {
  AGREEMENT_VERDICT_LABELS,
  ariaSort,
  axisLabels,
  familyNames,
  formatPassRate,
  inCaseOrder,
  namesById,
  nextSort,
  notPassedMetrics,
  runnableTests,
  runnableVersions,
  runScoreSummary,
  sortByMetric,
  startRunBody,
  stepDecimals,
  testNames,
  wordDiff,
  agreementCoefficient,
  agreementVerdictHint,
  agreementVerdictLabel,
  alertRuleText,
  asMonitorResults,
  caseInputText,
  comparisonSentence,
  correctedText,
  decideLabel,
  didNotPass,
  familyMarkers,
  familyName,
  familySeries,
  FOREST_LAYOUT,
  forestLayout,
  forestPlot,
  formatAlpha,
  formatBias,
  formatCoefficient,
  formatDifference,
  formatDifferenceInterval,
  formatLabelScore,
  formatPValue,
  formatRange,
  href,
  labelsToSubmit,
  lastOutput,
  movedMost,
  newLabelState,
  notPassedSessionIds,
  parseRoute,
  queueProgress,
  remainingText,
  resultColumns,
  resultRows,
  reviewerName,
  reviewShortcut,
  runDone,
  setLabelReason,
  setLabelScore,
  sessionScores,
  spanTree,
  spendShare,
  spendText,
  UnexpectedAnswerError,
  verdictLabel,
  type Evaluation,
  type MonitorResults,
  type Session,
  type Span,
  type TestCase,
  type Turn,
  type Agreement,
  type CaseComparison,
  type CorrectedScore,
  type MetricComparison,
  type RunMetric,
} from '../../console/src/view-models.js';

const point = (scoredSessions: number, score: number | null, ci: { lower: number; upper: number } | null = null) => ({
  scoredSessions,
  score,
  confidenceInterval: ci,
  collectingData: scoredSessions < 30,
});

/** A run's metric before any evaluation. */
const runMetric = (metricId: string, name: string): RunMetric => ({
  metricId,
  name,
  evaluated: 0,
  failed: 0,
  skipped: 0,
  score: null,
  confidenceInterval: null,
  passRate: null,
});

describe('console routes', () => {
  it('reads every page from the hash, with its parameters, and writes it back', () => {
    expect(parseRoute('')).toEqual({ page: 'monitors', offset: 0 });
    expect(parseRoute('#/')).toEqual({ page: 'monitors', offset: 0 });
    expect(parseRoute('#/monitors?offset=25')).toEqual({ page: 'monitors', offset: 25 });
    expect(parseRoute('#/monitors/mon_1')).toEqual({ page: 'monitor', id: 'mon_1', days: 7 });
    expect(parseRoute('#/monitors/mon_1?days=30')).toEqual({ page: 'monitor', id: 'mon_1', days: 30 });
    expect(parseRoute('#/runs')).toEqual({ page: 'runs', offset: 0 });
    expect(parseRoute('#/runs/run_1?offset=50')).toEqual({ page: 'run', id: 'run_1', offset: 50, notPassed: false });
    expect(parseRoute('#/runs/run_1?notPassed=1')).toEqual({ page: 'run', id: 'run_1', offset: 0, notPassed: true });
    expect(parseRoute('#/runs/run_2/comparison?base=run_1')).toEqual({
      page: 'comparison',
      id: 'run_2',
      baseRunId: 'run_1',
      metricId: null,
    });
    expect(parseRoute('#/sessions/sess_1')).toEqual({ page: 'session', id: 'sess_1' });
    expect(parseRoute('#/review')).toEqual({ page: 'review', productId: null, offset: 0 });
    expect(parseRoute('#/review?product=prod_1&offset=25')).toEqual({
      page: 'review',
      productId: 'prod_1',
      offset: 25,
    });
    expect(parseRoute('#/review/rq_1')).toEqual({ page: 'reviewQueue', id: 'rq_1' });
    expect(href({ page: 'review', productId: null, offset: 0 })).toBe('#/review');
    expect(href({ page: 'review', productId: 'prod_1', offset: 0 })).toBe('#/review?product=prod_1');
    expect(href({ page: 'reviewQueue', id: 'rq_1' })).toBe('#/review/rq_1');
    expect(href({ page: 'run', id: 'run_1', offset: 0 })).toBe('#/runs/run_1');
    expect(href({ page: 'run', id: 'run_1', offset: 25, notPassed: true })).toBe('#/runs/run_1?offset=25&notPassed=1');
    for (const route of [
      { page: 'monitor', id: 'mon_1', days: 30 },
      { page: 'run', id: 'run_1', offset: 50, notPassed: false },
      { page: 'run', id: 'run_1', offset: 25, notPassed: true },
      { page: 'comparison', id: 'run_2', baseRunId: 'run 1', metricId: 'met_a' },
      { page: 'comparison', id: 'run_2', baseRunId: 'run_1', metricId: null },
      { page: 'session', id: 'sess 1' },
      { page: 'runs', offset: 0 },
      { page: 'review', productId: 'prod 1', offset: 50 },
      { page: 'review', productId: null, offset: 0 },
      { page: 'reviewQueue', id: 'rq 1' },
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
    // a comparison needs its baseline
    expect(parseRoute('#/runs/run_2/comparison')).toEqual({ page: 'unknown', path: '/runs/run_2/comparison' });
    expect(parseRoute('#/runs/run_2/other?base=run_1')).toEqual({ page: 'unknown', path: '/runs/run_2/other' });
    expect(parseRoute('#/review?product=')).toEqual({ page: 'review', productId: null, offset: 0 });
    expect(parseRoute('#/review/rq_1/items')).toEqual({ page: 'unknown', path: '/review/rq_1/items' });
  });
});

describe('list filters and result order in the route', () => {
  it('reads the runs list filters (product, version, test, status, name) and writes them back', () => {
    expect(parseRoute('#/runs?product=prod_1&version=ver_1&test=test_1&status=COMPLETED&q=nightly&offset=25')).toEqual({
      page: 'runs',
      offset: 25,
      filters: { productId: 'prod_1', versionId: 'ver_1', testId: 'test_1', status: 'COMPLETED', q: 'nightly' },
    });
    // an unknown status and empty values are no filter
    expect(parseRoute('#/runs?status=DONE&q=&product=')).toEqual({ page: 'runs', offset: 0 });
    expect(href({ page: 'runs', offset: 0, filters: { testId: 'test 1', q: 'a&b' } })).toBe(
      '#/runs?test=test+1&q=a%26b',
    );
    expect(href({ page: 'runs', offset: 0, filters: {} })).toBe('#/runs');
    expect(parseRoute('#/monitors?product=prod_1&status=PAUSED&q=prod')).toEqual({
      page: 'monitors',
      offset: 0,
      filters: { productId: 'prod_1', status: 'PAUSED', q: 'prod' },
    });
    expect(parseRoute('#/monitors?status=COMPLETED')).toEqual({ page: 'monitors', offset: 0 });
    for (const route of [
      { page: 'runs', offset: 50, filters: { productId: 'prod_1', status: 'FAILED', q: 'v1 · faq' } },
      { page: 'monitors', offset: 25, filters: { status: 'CAPPED' } },
      { page: 'run', id: 'run_1', offset: 25, notPassed: true, sort: { metricId: 'met_a', dir: 'desc' } },
      { page: 'run', id: 'run_1', offset: 0, notPassed: false, sort: { metricId: 'met_text_similarity', dir: 'asc' } },
    ] as const) {
      expect(parseRoute(href(route))).toEqual(route);
    }
  });

  it('orders the results by a metric only with a valid sort', () => {
    expect(parseRoute('#/runs/run_1?sort=met_a:asc')).toEqual({
      page: 'run',
      id: 'run_1',
      offset: 0,
      notPassed: false,
      sort: { metricId: 'met_a', dir: 'asc' },
    });
    for (const bad of ['met_a', 'met_a:up', ':asc', 'met a:asc'])
      expect(parseRoute(`#/runs/run_1?sort=${encodeURIComponent(bad)}`)).toEqual({
        page: 'run',
        id: 'run_1',
        offset: 0,
        notPassed: false,
      });
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
    organizationId: 'org_1',
    sessionId: 'sess_1',
    inferenceResultId: 'inf_1',
    name: id,
    type: 'SPAN',
    description: null,
    inputData: null,
    outputData: null,
    error: null,
    latencyMs: null,
    metadata: {},
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

const evaluation = (
  sessionId: string,
  metricId: string,
  status: Evaluation['status'],
  score: number | null,
  extra: Partial<Evaluation> = {},
): Evaluation => ({
  id: `eval_${sessionId}_${metricId}_${extra.inferenceResultId ?? ''}`,
  organizationId: 'org_1',
  sessionId,
  inferenceResultId: null,
  metricId,
  metricGroupId: metricId.replace(/^met_/, 'mgrp_'),
  metricName: metricId.replace(/^met_/, ''),
  monitorId: null,
  status,
  score,
  reason: status === 'SUCCESS' ? `reason ${score}` : null,
  error: status === 'SUCCESS' ? null : `${status.toLowerCase()} because`,
  creditsUsed: 0,
  humanScore: null,
  humanReason: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  evaluatedAt: null,
  ...extra,
});

describe('run results', () => {
  const session = (id: string, testCaseId: string | null, status: Session['status'] = 'COMPLETED'): Session => ({
    id,
    organizationId: 'org_1',
    productId: 'prod_1',
    versionId: 'ver_1',
    userId: 'usr_1',
    customId: null,
    testId: 'test_1',
    testCaseId,
    runId: 'run_1',
    context: null,
    stoppingReason: null,
    recordingUri: null,
    voice: null,
    voiceError: null,
    error: null,
    status,
    isProduction: false,
    metadata: {},
    turnCount: 1,
    lastTurnAt: null,
    closedAt: null,
    createdAt: '2026-01-01T00:00:00.000Z',
  });
  const testCase = (id: string, index: number, input: TestCase['input'], expectedOutput: string | null): TestCase => ({
    id,
    organizationId: 'org_1',
    productId: 'prod_1',
    testId: 'test_1',
    index,
    input,
    expectedOutput,
    expectedTools: [],
    context: null,
    variant: null,
    strategy: null,
    isAugmented: false,
    languageCode: null,
    goal: null,
    userPersona: null,
    scenario: null,
    stoppingCriterias: [],
    maxIterations: null,
    createdAt: '2026-01-01T00:00:00.000Z',
  });
  const turn = (sessionId: string, index: number, input: string, output: string | null): Turn => ({
    id: `inf_${sessionId}_${index}`,
    organizationId: 'org_1',
    sessionId,
    index,
    input,
    output,
    retrievalContext: [],
    latencyMs: null,
    usage: { inputTokens: 0, outputTokens: 0, cacheReadInputTokens: 0 },
    cost: null,
    metadata: {},
    createdAt: '2026-01-01T00:00:00.000Z',
  });

  it('counts a case as not passed only for a SUCCESS evaluation scored below the threshold', () => {
    expect(didNotPass([{ status: 'SUCCESS', score: 0.49 }], 0.5)).toBe(true);
    expect(didNotPass([{ status: 'SUCCESS', score: 0.5 }], 0.5)).toBe(false);
    expect(didNotPass([{ status: 'SUCCESS', score: 0.7 }], 0.8)).toBe(true);
    // failed, skipped and pending evaluations have no score to fail on
    expect(
      didNotPass(
        [
          { status: 'FAILED', score: null },
          { status: 'SKIPPED', score: null },
          { status: 'PENDING', score: null },
          { status: 'PENDING_HUMAN', score: 0.1 },
        ],
        0.5,
      ),
    ).toBe(false);
    const evaluations = [
      evaluation('sess_a', 'met_x', 'SUCCESS', 1),
      evaluation('sess_b', 'met_x', 'SUCCESS', 1),
      evaluation('sess_b', 'met_y', 'SUCCESS', 0.2),
      evaluation('sess_c', 'met_x', 'FAILED', null),
      evaluation('sess_d', 'met_x', 'SUCCESS', 0),
    ];
    expect(notPassedSessionIds(['sess_d', 'sess_a', 'sess_b', 'sess_c'], evaluations, 0.5)).toEqual([
      'sess_d',
      'sess_b',
    ]);
  });

  it("has one column per metric: the run's in its order, then others an evaluation names", () => {
    expect(
      resultColumns(
        {
          metricIds: ['met_b', 'met_a', 'met_c'],
          metrics: [
            { ...runMetric('met_a', 'A'), score: 1 },
            { ...runMetric('met_b', 'B'), score: 1 },
          ],
        },
        [evaluation('s', 'met_c', 'SUCCESS', 1), evaluation('s', 'met_d', 'SUCCESS', 1)],
      ),
    ).toEqual([
      { metricId: 'met_a', name: 'A' },
      { metricId: 'met_b', name: 'B' },
      { metricId: 'met_c', name: 'c' },
      { metricId: 'met_d', name: 'd' },
    ]);
  });

  it("makes a row per session: the case's input and expected output, the last output, each metric's scores and reasons", () => {
    const rows = resultRows(
      [session('sess_a', 'tc_1'), session('sess_b', 'tc_2'), session('sess_c', null, 'FAILED')],
      [
        testCase('tc_1', 0, 'hello 0', 'hello 0'),
        testCase('tc_2', 1, { message: 'hi', lang: 'en' }, null),
        testCase('tc_other', 2, 'unused', 'x'),
      ],
      [turn('sess_a', 0, 'hello 0', 'hello 0'), turn('sess_b', 1, 'second', 'bye'), turn('sess_b', 0, 'first', 'hi!')],
      [
        evaluation('sess_a', 'met_sim', 'SUCCESS', 1),
        evaluation('sess_b', 'met_sim', 'SUCCESS', 0.25, { inferenceResultId: 'inf_sess_b_1' }),
        evaluation('sess_b', 'met_sim', 'SUCCESS', 0.75, { inferenceResultId: 'inf_sess_b_0' }),
        evaluation('sess_b', 'met_ne', 'SKIPPED', null),
      ],
      0.5,
    );
    expect(rows).toEqual([
      {
        sessionId: 'sess_a',
        sessionStatus: 'COMPLETED',
        testCaseId: 'tc_1',
        caseIndex: 0,
        input: 'hello 0',
        output: 'hello 0',
        expected: 'hello 0',
        turnCount: 1,
        scores: { met_sim: [{ status: 'SUCCESS', score: 1, reason: 'reason 1', passed: true, turnIndex: null }] },
        passed: true,
      },
      {
        sessionId: 'sess_b',
        sessionStatus: 'COMPLETED',
        testCaseId: 'tc_2',
        caseIndex: 1,
        input: '{"message":"hi","lang":"en"}',
        output: 'bye',
        expected: null,
        turnCount: 2,
        scores: {
          met_sim: [
            { status: 'SUCCESS', score: 0.75, reason: 'reason 0.75', passed: true, turnIndex: 0 },
            { status: 'SUCCESS', score: 0.25, reason: 'reason 0.25', passed: false, turnIndex: 1 },
          ],
          met_ne: [{ status: 'SKIPPED', score: null, reason: 'skipped because', passed: null, turnIndex: null }],
        },
        passed: false,
      },
      {
        sessionId: 'sess_c',
        sessionStatus: 'FAILED',
        testCaseId: null,
        caseIndex: null,
        input: '—',
        output: null,
        expected: null,
        turnCount: 0,
        scores: {},
        passed: true,
      },
    ]);
  });

  it("reads a case's input as text and the agent's answer from the last turn", () => {
    expect(caseInputText('hi')).toBe('hi');
    expect(caseInputText({ a: 1 })).toBe('{"a":1}');
    expect(caseInputText(null, 'reach a refund')).toBe('reach a refund');
    expect(caseInputText(undefined)).toBe('—');
    expect(lastOutput([])).toBeNull();
    expect(
      lastOutput([
        { index: 2, output: 'third' },
        { index: 0, output: 'first' },
      ]),
    ).toBe('third');
    expect(lastOutput([{ index: 0, output: null }])).toBeNull();
  });
});

describe('run comparison views', () => {
  const metric = (
    metricId: string,
    difference: number | null,
    confidenceInterval: [number, number] | null,
    verdict: MetricComparison['verdict'],
    n = 40,
  ): MetricComparison => ({
    metricId,
    name: metricId.replace(/^met_/, ''),
    n,
    onlyInBase: 0,
    onlyInRun: 0,
    baseScore: 0.6,
    score: difference === null ? null : 0.6 + difference,
    difference,
    standardError: null,
    confidenceInterval,
    pValue: null,
    adjustedPValue: null,
    verdict,
    minimumDetectableEffect: 0.1,
  });

  it('places dots and intervals on a scale from the smallest to the largest interval end and 0, with a zero line', () => {
    const metrics = [
      metric('met_worse', -0.15, [-0.25, -0.05], 'regressed'),
      metric('met_better', 0.2, [0.05, 0.35], 'improved'),
      metric('met_same', 0.02, [-0.08, 0.12], 'no_significant_change'),
      metric('met_few', 0.1, null, 'not_enough_data', 3),
    ];
    const plot = forestPlot(metrics);
    const { labelWidth, width, rightPadding, top, rowHeight, axisHeight } = FOREST_LAYOUT;
    expect(plot.plotLeft).toBe(labelWidth);
    expect(plot.plotRight).toBe(width - rightPadding);
    // lowest -0.25, highest 0.35: span 0.6, padded by 0.03 each side
    expect(plot.domain[0]).toBeCloseTo(-0.28, 10);
    expect(plot.domain[1]).toBeCloseTo(0.38, 10);
    const x = (v: number) => labelWidth + ((v + 0.28) / 0.66) * (width - rightPadding - labelWidth);
    expect(plot.zeroX).toBeCloseTo(x(0), 6);
    expect(plot.height).toBe(top + 4 * rowHeight + axisHeight);
    expect(plot.axisY).toBe(top + 4 * rowHeight);
    const [worse, better, same, few] = plot.rows;
    expect(worse).toMatchObject({ metricId: 'met_worse', verdict: 'regressed', y: top + rowHeight / 2 });
    expect(worse!.dotX).toBeCloseTo(x(-0.15), 6);
    expect(worse!.x1).toBeCloseTo(x(-0.25), 6);
    expect(worse!.x2).toBeCloseTo(x(-0.05), 6);
    expect(worse!.x2!).toBeLessThan(plot.zeroX); // the whole interval left of zero
    expect(better!.x1!).toBeGreaterThan(plot.zeroX);
    expect(better!.y).toBe(top + rowHeight * 1.5);
    expect(same!.x1!).toBeLessThan(plot.zeroX);
    expect(same!.x2!).toBeGreaterThan(plot.zeroX);
    // no interval: a dot alone
    expect(few).toMatchObject({ x1: null, x2: null });
    expect(few!.dotX).toBeCloseTo(x(0.1), 6);
    // ticks every 0.2 inside the domain, labelled with their sign
    expect(plot.ticks.map((t) => [t.value, t.label])).toEqual([
      [-0.2, '−0.2'],
      [0, '0'],
      [0.2, '+0.2'],
    ]);
    expect(plot.ticks[1]!.x).toBeCloseTo(plot.zeroX, 6);
  });

  it('keeps zero inside the scale when every difference is on one side, and widens a scale of zeros', () => {
    const plot = forestPlot([metric('met_a', 0.3, [0.2, 0.4], 'improved')]);
    expect(plot.domain[0]).toBeCloseTo(-0.02, 10);
    expect(plot.domain[1]).toBeCloseTo(0.42, 10);
    expect(plot.zeroX).toBeGreaterThan(plot.plotLeft);
    expect(plot.zeroX).toBeLessThan(plot.rows[0]!.x1!);
    const flat = forestPlot([
      metric('met_a', 0, null, 'not_enough_data'),
      metric('met_b', null, null, 'not_enough_data'),
    ]);
    expect(flat.domain[0]).toBeCloseTo(-0.11, 10);
    expect(flat.domain[1]).toBeCloseTo(0.11, 10);
    expect(flat.zeroX).toBeCloseTo((flat.plotLeft + flat.plotRight) / 2, 6);
    expect(flat.rows[1]).toMatchObject({ dotX: null, x1: null, x2: null });
  });

  it('draws at the page width, with less room for names on a phone', () => {
    expect(forestLayout(760)).toEqual({ ...FOREST_LAYOUT, width: 760 });
    expect(forestLayout(350)).toEqual({ ...FOREST_LAYOUT, width: 350, labelWidth: 120 });
    const plot = forestPlot([metric('met_a', -0.1, [-0.2, 0], 'no_significant_change')], forestLayout(350));
    expect(plot.plotLeft).toBe(120);
    expect(plot.plotRight).toBe(350 - FOREST_LAYOUT.rightPadding);
    // domain -0.21 to 0.01 (-0.2 and 0 padded by 5% of 0.2) over 120 to 326 px
    expect(plot.rows[0]!.x1).toBeCloseTo(120 + (0.01 / 0.22) * 206, 6);
    expect(plot.zeroX).toBeCloseTo(120 + (0.21 / 0.22) * 206, 6);
  });

  it('labels verdicts and signs differences', () => {
    expect(verdictLabel('improved')).toBe('Improved');
    expect(verdictLabel('regressed')).toBe('Regressed');
    expect(verdictLabel('no_significant_change')).toBe('No significant change');
    expect(verdictLabel('not_enough_data')).toBe('Not enough data');
    expect(verdictLabel('something_new')).toBe('something_new');
    expect(formatDifference(0.12)).toBe('+0.120');
    expect(formatDifference(-0.15)).toBe('−0.150');
    expect(formatDifference(-0.0001)).toBe('0.000');
    expect(formatDifference(null)).toBe('—');
    expect(formatDifferenceInterval([-0.25, -0.05])).toBe('−0.250 to −0.050');
    expect(formatDifferenceInterval(null)).toBe('not enough pairs');
    expect(formatPValue(0.0004)).toBe('< 0.001');
    expect(formatPValue(0.0312)).toBe('0.031');
    expect(formatPValue(null)).toBe('—');
    expect(comparisonSentence(metric('met_worse', -0.15, [-0.25, -0.05], 'regressed'))).toBe(
      'worse: regressed, difference −0.150, 95% interval −0.250 to −0.050, n = 40',
    );
  });

  it('lists the cases that moved most by |difference|, each case and metric once, unmoved ones left out', () => {
    const c = (testCaseId: string, metricId: string, difference: number): CaseComparison => ({
      testCaseId,
      metricId,
      metricName: metricId,
      input: testCaseId,
      baseScore: 0.5,
      score: 0.5 + difference,
      difference,
      baseSessionIds: [`sess_base_${testCaseId}`],
      sessionIds: [`sess_${testCaseId}`],
    });
    const regressed = [c('tc_1', 'met_a', -0.9), c('tc_2', 'met_a', -0.3), c('tc_3', 'met_a', -0.3)];
    const improved = [
      c('tc_4', 'met_a', 0.5),
      c('tc_5', 'met_b', 0.3),
      c('tc_1', 'met_a', -0.9),
      c('tc_6', 'met_a', 0),
    ];
    expect(movedMost(regressed, improved, 10).map((x) => [x.testCaseId, x.metricId, x.difference])).toEqual([
      ['tc_1', 'met_a', -0.9],
      ['tc_4', 'met_a', 0.5],
      ['tc_2', 'met_a', -0.3], // ties: regressions first, then by test case
      ['tc_3', 'met_a', -0.3],
      ['tc_5', 'met_b', 0.3],
    ]);
    expect(movedMost(regressed, improved, 2).map((x) => x.testCaseId)).toEqual(['tc_1', 'tc_4']);
  });
});

describe('monitor alerts and session scores', () => {
  const results = {
    metrics: [{ metricGroupId: 'mgrp_json', name: 'is_json', headline: point(0, null), buckets: [] }],
  };

  it("names a family, else shows its id, and states a rule's condition", () => {
    expect(familyName(results, 'mgrp_json')).toBe('is_json');
    expect(familyName(results, 'mgrp_gone')).toBe('mgrp_gone');
    expect(alertRuleText({ below: 0.7, window: '1h', minSessions: 20, confidence: 'point' })).toBe(
      'score below 0.700 over 1h, from 20 sessions',
    );
    expect(alertRuleText({ below: 0.5, window: '15m', minSessions: 1, confidence: 'point' })).toBe(
      'score below 0.500 over 15m, from 1 session',
    );
    expect(alertRuleText({ below: 0.7, window: '1h', minSessions: 20, confidence: 'interval' })).toBe(
      '95% interval wholly below 0.700 over 1h, from 20 sessions (and at least 30)',
    );
  });

  it("keeps each session's scores per family from this monitor only, human scores first", () => {
    const scores = sessionScores(
      [
        evaluation('sess_a', 'met_json_2', 'SUCCESS', 0, { monitorId: 'mon_1', metricGroupId: 'mgrp_json' }),
        evaluation('sess_a', 'met_json_2', 'SUCCESS', 1, { monitorId: 'mon_other', metricGroupId: 'mgrp_json' }),
        evaluation('sess_b', 'met_json_2', 'SUCCESS', 0.2, {
          monitorId: 'mon_1',
          metricGroupId: 'mgrp_json',
          humanScore: 0.9,
          humanReason: 'a person disagreed',
        }),
        evaluation('sess_c', 'met_json_2', 'FAILED', null, { monitorId: 'mon_1', metricGroupId: 'mgrp_json' }),
        evaluation('sess_d', 'met_x', 'SUCCESS', 1, { monitorId: null }),
      ],
      'mon_1',
    );
    expect([...scores.keys()]).toEqual(['sess_a', 'sess_b', 'sess_c']);
    expect(scores.get('sess_a')!.get('mgrp_json')).toEqual([
      { status: 'SUCCESS', score: 0, reason: 'reason 0', passed: null, turnIndex: null },
    ]);
    expect(scores.get('sess_b')!.get('mgrp_json')![0]).toMatchObject({ score: 0.9, reason: 'a person disagreed' });
    expect(scores.get('sess_c')!.get('mgrp_json')![0]).toMatchObject({ status: 'FAILED', reason: 'failed because' });
  });
});

describe('the comparison reads (over the typed client)', () => {
  const answer = (status: number, body: unknown, headers: Record<string, string> = {}) =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
  const reads = (baseUrl: string, fetch: (request: Request) => Promise<Response>) =>
    resources(createApiClient({ baseUrl, apiKey: 'evk_1', fetch }));

  it('sends the key and the query (lists as repeated keys), and reads the total of a page of cases', async () => {
    const seen: Request[] = [];
    const api = reads('http://api.test/base/', async (request) => {
      seen.push(request);
      return request.url.includes('/cases')
        ? answer(200, [{ testCaseId: 'tc_1', metricId: 'met_a', difference: -0.5 }], { 'X-Total-Count': '7' })
        : answer(200, {
            runId: 'run 2',
            baseRunId: 'run_1',
            pairedBy: 'testCaseId',
            verdict: 'improved',
            metrics: [],
          });
    });
    expect((await api.runComparison('run 2', 'run_1')).verdict).toBe('improved');
    const page = await api.comparisonCases('run 2', 'run_1', {
      metricIds: ['met_a', 'met_b'],
      changed: 'regressed',
      sort: 'difference:asc',
      limit: 10,
    });
    expect(page).toEqual({ items: [{ testCaseId: 'tc_1', metricId: 'met_a', difference: -0.5 }], total: 7 });
    expect(seen.map((s) => s.url)).toEqual([
      'http://api.test/base/runs/run%202/comparison?baseRunId=run_1',
      'http://api.test/base/runs/run%202/comparison/cases?baseRunId=run_1&metricIds=met_a&metricIds=met_b&changed=regressed&sort=difference%3Aasc&limit=10',
    ]);
    expect(seen[0]!.headers.get('authorization')).toBe('Bearer evk_1');
  });

  it("turns an error answer into an ApiError with the API's error and message, and refuses a wrong shape", async () => {
    const api = reads('http://api.test', async (request) =>
      request.url.includes('/cases')
        ? answer(200, { not: 'a list' })
        : answer(409, { error: 'Conflict', message: 'the run is RUNNING' }),
    );
    const error = await api.runComparison('run_2', 'run_1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 409, error: 'Conflict', message: 'the run is RUNNING' });
    await expect(api.comparisonCases('run_2', 'run_1')).rejects.toThrow(UnexpectedAnswerError);
  });
});

describe('human review views', () => {
  const agreement = (over: Partial<Agreement> = {}): Agreement => ({
    metricId: 'met_a',
    n: 48,
    judgeMean: 0.79,
    humanMean: 0.75,
    bias: 0.04,
    biasInterval: { lower: -0.02, upper: 0.1 },
    meanAbsoluteError: 0.08,
    spearman: null,
    spearmanInterval: null,
    binary: true,
    kappa: 0.81,
    kappaInterval: { lower: 0.64, upper: 0.98 },
    truePositiveRate: 0.97,
    trueNegativeRate: 0.83,
    reviewers: { alpha: 0.78, units: 9, values: 18 },
    verdict: 'calibrated',
    ...over,
  });

  it('labels each verdict, and shows κ for pass/fail scores, else Spearman’s ρ, with its interval', () => {
    expect(AGREEMENT_VERDICT_LABELS).toEqual({
      calibrated: 'Calibrated',
      not_calibrated: 'Not calibrated',
      not_enough_data: 'Not enough data',
    });
    expect(agreementVerdictLabel('not_calibrated')).toBe('Not calibrated');
    expect(agreementVerdictLabel('something_new')).toBe('something_new');
    expect(agreementCoefficient(agreement())).toEqual({
      symbol: 'κ',
      name: "Cohen's κ",
      value: 0.81,
      interval: { lower: 0.64, upper: 0.98 },
    });
    expect(formatCoefficient(agreement())).toBe('κ 0.810 (0.640 to 0.980)');
    const graded = agreement({
      binary: false,
      kappa: null,
      kappaInterval: null,
      spearman: 0.42,
      spearmanInterval: { lower: 0.1, upper: 0.66 },
    });
    expect(agreementCoefficient(graded).symbol).toBe('ρ');
    expect(formatCoefficient(graded)).toBe('ρ 0.420 (0.100 to 0.660)');
    expect(formatCoefficient({ ...graded, spearmanInterval: null })).toBe('ρ 0.420 (no interval)');
    expect(formatCoefficient({ ...graded, spearman: null, spearmanInterval: null })).toBe('ρ —');
  });

  it('writes intervals, the bias with its sign, and the reviewers’ α or why there is none', () => {
    expect(formatRange({ lower: 0.64, upper: 0.98 })).toBe('0.640 to 0.980');
    expect(formatRange({ lower: -0.02, upper: 0.1 }, true)).toBe('−0.020 to +0.100');
    expect(formatRange(null)).toBe('no interval');
    expect(formatBias(agreement())).toBe('+0.040 (−0.020 to +0.100)');
    expect(formatBias(agreement({ bias: -0.125, biasInterval: null }))).toBe('−0.125 (no interval)');
    expect(formatBias(agreement({ bias: null, biasInterval: null }))).toBe('—');
    expect(formatAlpha({ alpha: 0.78, units: 9, values: 18 })).toBe('0.780 over 9 sessions');
    expect(formatAlpha({ alpha: -0.1, units: 1, values: 2 })).toBe('-0.100 over 1 session');
    expect(formatAlpha({ alpha: null, units: 0, values: 0 })).toBe('— (no session labelled twice)');
    expect(formatAlpha({ alpha: null, units: 1, values: 2 })).toBe('— (1 session labelled twice, too few to tell)');
  });

  it('says why a verdict is what it is: the bar, the labels still needed, or an interval across 0.6', () => {
    expect(agreementVerdictHint(agreement())).toBe(
      "κ is at least 0.6 even at its interval's lower end, over 48 sessions",
    );
    expect(agreementVerdictHint(agreement({ verdict: 'not_calibrated', kappa: 0.2 }))).toBe(
      "κ stays under 0.6 even at its interval's upper end",
    );
    expect(agreementVerdictHint(agreement({ verdict: 'not_enough_data', n: 3 }))).toBe(
      '27 more labelled sessions needed (at least 30)',
    );
    expect(agreementVerdictHint(agreement({ verdict: 'not_enough_data', n: 29 }))).toBe(
      '1 more labelled session needed (at least 30)',
    );
    expect(
      agreementVerdictHint(agreement({ verdict: 'not_enough_data', kappaInterval: { lower: 0.5, upper: 0.9 } })),
    ).toBe("κ's interval (0.500 to 0.900) still straddles 0.6: more labels narrow it");
    expect(
      agreementVerdictHint(
        agreement({ verdict: 'not_enough_data', binary: false, spearman: null, spearmanInterval: null }),
      ),
    ).toBe("no ρ yet: the judge's or the people's scores do not vary");
  });

  it('shows a corrected score with its interval, labels and effective labels, or the hint when there is none', () => {
    const corrected: CorrectedScore = {
      score: 0.7123,
      interval: { lower: 0.65, upper: 0.78 },
      labeled: 12,
      unlabeled: 40,
      lambda: 0.6,
      effectiveLabels: 15.34,
    };
    expect(correctedText(corrected)).toEqual({
      score: '0.712 (0.650 – 0.780)',
      detail: '12 labelled, 15.3 effective labels',
    });
    expect(correctedText({ ...corrected, effectiveLabels: null }).detail).toBe('12 labelled');
    expect(correctedText(null)).toEqual({ score: '—', detail: 'label ≥ 10 sampled sessions' });
    expect(correctedText(undefined)).toEqual({ score: '—', detail: 'label ≥ 10 sampled sessions' });
  });

  it('states a queue’s progress and what is left for the reviewer', () => {
    expect(queueProgress({ items: 10, pending: 7, done: 3 })).toEqual({ share: 0.3, text: '3 of 10 done (7 pending)' });
    expect(queueProgress({ items: 0, pending: 0, done: 0 })).toEqual({ share: 0, text: 'no items yet' });
    expect(remainingText(12)).toBe('12 left');
    expect(remainingText(1)).toBe('1 left');
    expect(remainingText(0)).toBe('nothing left');
    expect(reviewerName('  Ann  ')).toBe('Ann');
    expect(reviewerName('   ')).toBeNull();
    expect(reviewerName('x'.repeat(129))).toBeNull();
    expect(formatLabelScore(1)).toBe('pass (1)');
    expect(formatLabelScore(0)).toBe('fail (0)');
    expect(formatLabelScore(0.7)).toBe('0.70');
    expect(formatLabelScore(null)).toBe('not labelled yet');
  });

  it('gives labels metric by metric: pass/fail moves on, the slider stays, every metric needs a score', () => {
    const task = {
      metrics: [
        { id: 'met_a', name: 'helpful', description: 'Is it helpful?' },
        { id: 'met_b', name: 'polite', description: '' },
      ],
    };
    let state = newLabelState(task);
    expect(state).toEqual({
      drafts: [
        { metricId: 'met_a', name: 'helpful', description: 'Is it helpful?', score: null, reason: '' },
        { metricId: 'met_b', name: 'polite', description: '', score: null, reason: '' },
      ],
      current: 0,
    });
    expect(labelsToSubmit(state)).toEqual({ missing: [0, 1] });
    state = decideLabel(state, 0, 1);
    expect(state.current).toBe(1);
    expect(labelsToSubmit(state)).toEqual({ missing: [1] });
    state = decideLabel(state, 1, 0);
    expect(state.current).toBe(1); // the last metric stays current
    state = setLabelScore(state, 0, 0.65);
    expect(state.current).toBe(0);
    expect(setLabelScore(state, 1, 7).drafts[1]!.score).toBe(1);
    expect(setLabelScore(state, 5, 1)).toBe(state);
    state = setLabelReason(state, 0, '  right answer  ');
    state = setLabelReason(state, 1, '   ');
    expect(labelsToSubmit(state)).toEqual({
      labels: [
        { metricId: 'met_a', score: 0.65, reason: 'right answer' },
        { metricId: 'met_b', score: 0, reason: null },
      ],
    });
  });

  it('maps keys to labelling: 1 and 0 decide, Enter saves, never while typing or on a control outside the panel', () => {
    const key = (k: string, mods: { ctrlKey?: boolean; metaKey?: boolean; altKey?: boolean } = {}) => ({
      key: k,
      ...mods,
    });
    // the heading of the item (in the panel) or the page's heading (outside it): every key
    for (const inPanel of [true, false]) {
      expect(reviewShortcut(key('1'), 'other', inPanel)).toEqual({ action: 'decide', score: 1 });
      expect(reviewShortcut(key('0'), 'other', inPanel)).toEqual({ action: 'decide', score: 0 });
      expect(reviewShortcut(key('Enter'), 'other', inPanel)).toEqual({ action: 'submit' });
    }
    // typing in a reason box, a name or a number field: nothing
    for (const k of ['1', '0', 'Enter']) {
      expect(reviewShortcut(key(k), 'text', true)).toBeNull();
      expect(reviewShortcut(key(k), 'text', false)).toBeNull();
    }
    // a button of the panel: 1 and 0 decide, Enter keeps the button's own action
    expect(reviewShortcut(key('1'), 'button', true)).toEqual({ action: 'decide', score: 1 });
    expect(reviewShortcut(key('Enter'), 'button', true)).toBeNull();
    // a control outside the panel (the sample form's button, the header's links): nothing
    for (const k of ['1', '0', 'Enter']) expect(reviewShortcut(key(k), 'button', false)).toBeNull();
    // Ctrl/⌘+Enter saves from anywhere in the panel, the reason box included; other modified keys are not ours
    expect(reviewShortcut(key('Enter', { ctrlKey: true }), 'text', true)).toEqual({ action: 'submit' });
    expect(reviewShortcut(key('Enter', { metaKey: true }), 'button', true)).toEqual({ action: 'submit' });
    expect(reviewShortcut(key('Enter', { ctrlKey: true }), 'text', false)).toBeNull();
    expect(reviewShortcut(key('1', { ctrlKey: true }), 'other', true)).toBeNull();
    expect(reviewShortcut(key('0', { altKey: true }), 'other', true)).toBeNull();
    expect(reviewShortcut(key('2'), 'other', true)).toBeNull();
    expect(reviewShortcut(key('a'), 'other', true)).toBeNull();
  });
});

describe('the review reads and writes (over the typed client)', () => {
  const answer = (status: number, body?: unknown, headers: Record<string, string> = {}) =>
    new Response(body === undefined ? null : JSON.stringify(body), {
      status,
      headers: { 'content-type': 'application/json', ...headers },
    });
  const task = {
    queueId: 'rq_1',
    itemId: 'rqi_1',
    sessionId: 'sess_1',
    instructions: null,
    metrics: [{ id: 'met_a', name: 'helpful', description: '' }],
    context: null,
    expectedOutput: null,
    turns: [{ index: 0, input: 'hi', output: 'hello', retrievalContext: [] }],
    remaining: 3,
  };

  it('asks the next item with the reviewer’s name, and reads 204 as nothing left', async () => {
    const seen: { url: string; method: string; body: string }[] = [];
    let left = 1;
    const api = resources(
      createApiClient({
        baseUrl: 'http://api.test',
        apiKey: 'evk_1',
        fetch: async (request) => {
          seen.push({ url: request.url, method: request.method, body: await request.text() });
          if (request.url.endsWith('/next')) return left-- > 0 ? answer(200, task) : answer(204);
          if (request.url.includes('/labels'))
            return answer(200, { id: 'rqi_1', sessionId: 'sess_1', status: 'DONE', labels: [] });
          return answer(200, {
            metricId: 'met_a',
            n: 0,
            binary: false,
            reviewers: { alpha: null, units: 0, values: 0 },
            verdict: 'not_enough_data',
          });
        },
      }),
    );
    expect(await api.nextReviewTask('rq_1', 'ann')).toEqual(task);
    expect(await api.nextReviewTask('rq_1', 'ann')).toBeNull();
    const item = await api.putLabels('rq_1', 'rqi_1', {
      reviewer: 'ann',
      labels: [{ metricId: 'met_a', score: 1, reason: null }],
    });
    expect(item.status).toBe('DONE');
    expect((await api.agreement('met_a', 'prod_1')).verdict).toBe('not_enough_data');
    expect(seen).toEqual([
      { url: 'http://api.test/reviewQueues/rq_1/next', method: 'POST', body: '{"reviewer":"ann"}' },
      { url: 'http://api.test/reviewQueues/rq_1/next', method: 'POST', body: '{"reviewer":"ann"}' },
      {
        url: 'http://api.test/reviewQueues/rq_1/items/rqi_1/labels',
        method: 'PUT',
        body: '{"reviewer":"ann","labels":[{"metricId":"met_a","score":1,"reason":null}]}',
      },
      { url: 'http://api.test/metrics/met_a/agreement?productId=prod_1', method: 'GET', body: '' },
    ]);
  });

  it('refuses a task without the fields the page reads', async () => {
    const api = resources(
      createApiClient({
        baseUrl: 'http://api.test',
        apiKey: 'evk_1',
        fetch: async () => answer(200, { queueId: 'rq_1', itemId: 'rqi_1' }),
      }),
    );
    await expect(api.nextReviewTask('rq_1', 'ann')).rejects.toThrow(/sessionId, metrics, turns, remaining/);
  });
});

describe('the runs list', () => {
  const metric = (metricId: string, score: number | null, passRate: number | null) => ({
    metricId,
    name: metricId.replace('met_', ''),
    evaluated: 7,
    failed: 0,
    skipped: 0,
    score,
    confidenceInterval: null,
    passRate,
  });

  it("shows each metric's score and pass rate, the first three, then how many more", () => {
    const run = {
      metrics: [
        metric('met_a', 0.589, 0.43),
        metric('met_b', 1, 1),
        metric('met_c', null, null),
        metric('met_d', 0.5, 0.5),
        metric('met_e', 0.1, 0),
      ],
    };
    expect(runScoreSummary(run)).toEqual({
      items: [
        { metricId: 'met_a', name: 'a', score: 0.589, passRate: 0.43 },
        { metricId: 'met_b', name: 'b', score: 1, passRate: 1 },
        { metricId: 'met_c', name: 'c', score: null, passRate: null },
      ],
      more: 2,
    });
    expect([0.857, 1, 0, 0.004, 0.996, null, undefined].map(formatPassRate)).toEqual([
      '86%',
      '100%',
      '0%',
      '< 1%',
      '> 99%',
      '—',
      '—',
    ]);
  });

  it('names records by id, a missing one by its id, and a family by its live revision', () => {
    const names = namesById([
      { id: 'test_1', name: 'faq' },
      { id: 'test_2', name: 'refunds' },
    ]);
    expect(testNames({ testIds: ['test_2', 'test_gone'] }, names)).toEqual(['refunds', 'test_gone']);
    expect(
      familyNames([
        { metricGroupId: 'mgrp_a', name: 'helpfulness v2', legacyAt: null },
        { metricGroupId: 'mgrp_a', name: 'helpfulness', legacyAt: '2026-01-01T00:00:00.000Z' },
        { metricGroupId: 'mgrp_b', name: 'old only', legacyAt: '2026-01-01T00:00:00.000Z' },
      ]),
    ).toEqual(
      new Map([
        ['mgrp_a', 'helpfulness v2'],
        ['mgrp_b', 'old only'],
      ]),
    );
  });

  it('offers the versions a run can reach and the SUCCESS tests of their product', () => {
    const versions = [
      { id: 'ver_http', conversationEndpointConnectionId: 'conn_1', phoneConnectionId: null },
      { id: 'ver_phone', conversationEndpointConnectionId: null, phoneConnectionId: 'phone_1' },
      { id: 'ver_none', conversationEndpointConnectionId: null, phoneConnectionId: null },
    ];
    expect(runnableVersions(versions).map((v) => v.id)).toEqual(['ver_http', 'ver_phone']);
    const tests = [
      { id: 'a', productId: 'prod_1', status: 'SUCCESS' as const, testCaseCount: 7 },
      { id: 'b', productId: 'prod_1', status: 'FAILED' as const, testCaseCount: 0 },
      { id: 'c', productId: 'prod_1', status: 'SUCCESS' as const, testCaseCount: 0 },
      { id: 'd', productId: 'prod_2', status: 'SUCCESS' as const, testCaseCount: 3 },
    ];
    expect(runnableTests(tests, 'prod_1').map((t) => t.id)).toEqual(['a']);
  });

  it('builds POST /runs from the start form, or says what to fix', () => {
    const input = { versionId: 'ver_1', testId: 'test_1', metricIds: [], repetitions: '1', name: '' };
    expect(startRunBody(input)).toEqual({ body: { versionId: 'ver_1', testId: 'test_1', repetitions: 1 } });
    expect(startRunBody({ ...input, metricIds: ['met_a', 'met_b'], repetitions: ' 3 ', name: ' nightly ' })).toEqual({
      body: { versionId: 'ver_1', testId: 'test_1', metricIds: ['met_a', 'met_b'], repetitions: 3, name: 'nightly' },
    });
    expect(startRunBody({ ...input, versionId: '' })).toEqual({ error: expect.stringMatching(/version/) });
    expect(startRunBody({ ...input, testId: '' })).toEqual({ error: expect.stringMatching(/test/) });
    for (const repetitions of ['0', '11', '1.5', 'two', ''])
      expect(startRunBody({ ...input, repetitions })).toEqual({ error: 'Repetitions is a whole number from 1 to 10.' });
    expect(startRunBody({ ...input, name: 'x'.repeat(201) })).toEqual({ error: expect.stringMatching(/200/) });
  });

  it('reads the runs with the API list parameters of its filters', async () => {
    const seen: string[] = [];
    const api = resources(
      createApiClient({
        baseUrl: 'http://api.test',
        apiKey: 'evk_1',
        fetch: async (request) => {
          seen.push(request.url);
          return new Response('[]', {
            status: 200,
            headers: { 'content-type': 'application/json', 'X-Total-Count': '0' },
          });
        },
      }),
    );
    expect(
      await api.listRuns(25, 25, {
        productId: 'prod_1',
        versionId: 'ver_1',
        testId: 'test_1',
        status: 'COMPLETED',
        q: 'v1 · faq',
      }),
    ).toEqual({ items: [], total: 0 });
    await api.listMonitors(0, 25, { productId: 'prod_1', status: 'ACTIVE', q: 'prod' });
    expect(seen.map((u) => Object.fromEntries(new URL(u).searchParams))).toEqual([
      {
        offset: '25',
        limit: '25',
        sort: 'createdAt:desc',
        productIds: 'prod_1',
        versionIds: 'ver_1',
        testIds: 'test_1',
        statuses: 'COMPLETED',
        name: 'v1 · faq',
      },
      { offset: '0', limit: '25', sort: 'createdAt:desc', productIds: 'prod_1', statuses: 'ACTIVE', name: 'prod' },
    ]);
  });
});

describe('results order', () => {
  const ev = (sessionId: string, metricId: string, status: Evaluation['status'], score: number | null) =>
    ({ sessionId, metricId, status, score }) as const;

  it("puts sessions in their case's order, then repetition; sessions without a known case last", () => {
    const index = new Map([
      ['tc_a', 2],
      ['tc_b', 1],
    ]);
    const sessions = [
      { id: 's1', testCaseId: 'tc_a', repetition: 2 },
      { id: 's2', testCaseId: null },
      { id: 's3', testCaseId: 'tc_a', repetition: 1 },
      { id: 's4', testCaseId: 'tc_gone' },
      { id: 's5', testCaseId: 'tc_b' },
    ];
    expect(inCaseOrder(sessions, index).map((s) => s.id)).toEqual(['s5', 's3', 's1', 's2', 's4']);
  });

  it("sorts by a metric's score (the mean over turns) both ways; ties keep case order, sessions without a score come last", () => {
    const evaluations = [
      ev('s1', 'met_a', 'SUCCESS', 0.5),
      ev('s2', 'met_a', 'SUCCESS', 0.2),
      ev('s2', 'met_b', 'SUCCESS', 1),
      ev('s3', 'met_a', 'SUCCESS', 1),
      ev('s3', 'met_a', 'SUCCESS', 0),
      ev('s4', 'met_a', 'FAILED', null),
      ev('s5', 'met_a', 'SUCCESS', 0.9),
    ];
    const ids = ['s1', 's2', 's3', 's4', 's5', 's6'];
    expect(sortByMetric(ids, evaluations, { metricId: 'met_a', dir: 'asc' })).toEqual([
      's2',
      's1',
      's3',
      's5',
      's4',
      's6',
    ]);
    expect(sortByMetric(ids, evaluations, { metricId: 'met_a', dir: 'desc' })).toEqual([
      's5',
      's1',
      's3',
      's2',
      's4',
      's6',
    ]);
    expect(sortByMetric(ids, evaluations, { metricId: 'met_b', dir: 'asc' })).toEqual([
      's2',
      's1',
      's3',
      's4',
      's5',
      's6',
    ]);
  });

  it('cycles a header: lowest first, highest first, case order; another header starts again', () => {
    expect(nextSort(undefined, 'met_a')).toEqual({ metricId: 'met_a', dir: 'asc' });
    expect(nextSort({ metricId: 'met_a', dir: 'asc' }, 'met_a')).toEqual({ metricId: 'met_a', dir: 'desc' });
    expect(nextSort({ metricId: 'met_a', dir: 'desc' }, 'met_a')).toBeUndefined();
    expect(nextSort({ metricId: 'met_a', dir: 'desc' }, 'met_b')).toEqual({ metricId: 'met_b', dir: 'asc' });
    expect(ariaSort(undefined, 'met_a')).toBe('none');
    expect(ariaSort({ metricId: 'met_a', dir: 'asc' }, 'met_a')).toBe('ascending');
    expect(ariaSort({ metricId: 'met_a', dir: 'desc' }, 'met_a')).toBe('descending');
    expect(ariaSort({ metricId: 'met_a', dir: 'desc' }, 'met_b')).toBe('none');
  });

  it('names the metrics a case did not pass, with the lowest failing score', () => {
    const cell = (score: number | null, passed: boolean | null) => ({
      status: 'SUCCESS' as const,
      score,
      reason: null,
      passed,
      turnIndex: null,
    });
    const row = {
      scores: {
        met_a: [cell(0.9, true)],
        met_b: [cell(0.4, false), cell(0.2, false), cell(0.8, true)],
        met_c: [cell(0.1, false)],
      },
    };
    const columns = [
      { metricId: 'met_a', name: 'A' },
      { metricId: 'met_b', name: 'B' },
      { metricId: 'met_c', name: 'C' },
    ];
    expect(notPassedMetrics(row, columns)).toEqual([
      { name: 'B', score: 0.2 },
      { name: 'C', score: 0.1 },
    ]);
    expect(notPassedMetrics({ scores: { met_a: [cell(0.9, true)] } }, columns)).toEqual([]);
  });
});

describe('axis labels', () => {
  it('have as many decimals as the gridlines’ step needs', () => {
    expect([1, 0.5, 0.25, 0.2, 0.1, 0.05, 0.02, 0.01].map((s) => stepDecimals(s))).toEqual([0, 1, 2, 1, 1, 2, 2, 2]);
    expect(stepDecimals(1, 1)).toBe(1);
    expect(stepDecimals(0.1 + 0.2)).toBe(1);
    expect(axisLabels([0, 0.25, 0.5, 0.75, 1])).toEqual(['0.00', '0.25', '0.50', '0.75', '1.00']);
    expect(axisLabels([0, 0.2, 0.4, 0.6000000000000001, 0.8, 1])).toEqual(['0.0', '0.2', '0.4', '0.6', '0.8', '1.0']);
    expect(axisLabels([0.5])).toEqual(['0.5']);
  });

  it('label the forest plot’s −0.75 gridline "−0.75", and every label reads back as its gridline', () => {
    // an interval from −1 to +0.25: a span of 1.375 with its padding, so a 0.25 step
    const m = (difference: number, ci: [number, number]) =>
      ({
        metricId: 'met_a',
        name: 'a',
        n: 7,
        onlyInBase: 0,
        onlyInRun: 0,
        baseScore: 0.9,
        score: 0.9 + difference,
        difference,
        standardError: 0.1,
        confidenceInterval: ci,
        pValue: 0.01,
        adjustedPValue: 0.01,
        verdict: 'regressed',
        minimumDetectableEffect: 0.5,
      }) as MetricComparison;
    const plot = forestPlot([m(-0.375, [-1, 0.25])]);
    expect(plot.ticks.map((t) => t.value)).toEqual([-1, -0.75, -0.5, -0.25, 0, 0.25]);
    const labels = plot.ticks.map((t) => t.label);
    expect(labels).toEqual(['−1.00', '−0.75', '−0.50', '−0.25', '0', '+0.25']);
    for (const t of plot.ticks) expect(Number(t.label.replace('−', '-').replace('+', ''))).toBeCloseTo(t.value, 9);
    for (const spread of [0.03, 0.07, 0.3, 0.6, 1.2, 1.9]) {
      const p = forestPlot([m(-spread / 2, [-spread, spread / 3])]);
      for (const t of p.ticks) expect(Number(t.label.replace('−', '-').replace('+', ''))).toBeCloseTo(t.value, 9);
    }
  });
});

describe('word diff', () => {
  const render = (parts: ReturnType<typeof wordDiff>) =>
    parts.map((p) => (p.kind === 'same' ? p.text : p.kind === 'removed' ? `[-${p.text}-]` : `{+${p.text}+}`)).join('');
  const wordsOf = (text: string) => text.split(/\s+/).filter(Boolean);

  it('marks the words only one output has, in reading order', () => {
    expect(render(wordDiff('Your order ships in 3 days.', 'Your order ships in 5 days.'))).toBe(
      'Your order ships in [-3 -]{+5 +}days.',
    );
    expect(render(wordDiff('hello 2', 'I cannot help with that request at all.'))).toBe(
      '[-hello 2-]{+I cannot help with that request at all.+}',
    );
    expect(render(wordDiff('a b c d', 'a c d e'))).toBe('a [-b -]c d {+e+}');
    expect(wordDiff('same words', 'same words')).toEqual([{ kind: 'same', text: 'same words' }]);
    expect(wordDiff('', 'new')).toEqual([{ kind: 'added', text: 'new' }]);
    expect(wordDiff('old', '')).toEqual([{ kind: 'removed', text: 'old' }]);
    expect(wordDiff('', '')).toEqual([]);
  });

  it('ignores white space in comparing and keeps the new output whole', () => {
    const parts = wordDiff('one  two\nthree four', 'one two three\nfive four');
    expect(
      parts
        .filter((p) => p.kind !== 'removed')
        .map((p) => p.text)
        .join(''),
    ).toBe('one two three\nfive four');
    expect(parts.filter((p) => p.kind === 'removed').map((p) => p.text.trim())).toEqual([]);
    expect(render(parts)).toBe('one two three\n{+five +}four');
  });

  it('keeps each output’s words: same and added make the new one, same and removed the old one', () => {
    const before = 'The refund takes 30 days and needs the receipt, call us at any time';
    const after = 'A refund takes 14 days; it needs the receipt or the order number, call us';
    const parts = wordDiff(before, after);
    expect(
      parts
        .filter((p) => p.kind !== 'removed')
        .map((p) => p.text)
        .join(''),
    ).toBe(after);
    expect(
      wordsOf(
        parts
          .filter((p) => p.kind !== 'added')
          .map((p) => p.text)
          .join(' '),
      ),
    ).toEqual(wordsOf(before));
    // adjacent parts of one kind are merged
    for (let i = 1; i < parts.length; i++) expect(parts[i]!.kind).not.toBe(parts[i - 1]!.kind);
  });

  it('past its bound, the middle is one removal and one addition', () => {
    const before = `start ${Array.from({ length: 50 }, (_, i) => `a${i}`).join(' ')} end`;
    const after = `start ${Array.from({ length: 50 }, (_, i) => `b${i}`).join(' ')} end`;
    const parts = wordDiff(before, after, 100);
    expect(parts.map((p) => p.kind)).toEqual(['same', 'removed', 'added', 'same']);
    expect(parts[0]!.text).toBe('start ');
    expect(parts.at(-1)!.text).toBe('end');
  });
});

describe('the API key', () => {
  const memory = (): KeyStorage & { items: Map<string, string> } => {
    const items = new Map<string, string>();
    return {
      items,
      getItem: (k) => items.get(k) ?? null,
      setItem: (k, v) => void items.set(k, v),
      removeItem: (k) => void items.delete(k),
    };
  };

  it('stays in the tab unless remembered; a remembered key opens a new tab, and is forgotten everywhere', () => {
    const device = memory();
    const tab = memory();
    saveKey({ tab, device }, 'evk_1', false);
    expect(tab.items.get(KEY_ITEM)).toBe('evk_1');
    expect(device.items.has(KEY_ITEM)).toBe(false);
    expect(isRemembered({ tab, device })).toBe(false);
    // a new tab of the same device: nothing remembered
    expect(readKey({ tab: memory(), device })).toBeNull();

    saveKey({ tab, device }, 'evk_2', true);
    expect(device.items.get(KEY_ITEM)).toBe('evk_2');
    expect(isRemembered({ tab, device })).toBe(true);
    const newTab = memory();
    expect(readKey({ tab: newTab, device })).toBe('evk_2');
    expect(newTab.items.get(KEY_ITEM)).toBe('evk_2');

    // typing a key without ticking the box forgets the remembered one
    saveKey({ tab, device }, 'evk_3', false);
    expect(device.items.has(KEY_ITEM)).toBe(false);
    saveKey({ tab, device }, 'evk_3', true);
    forgetKey({ tab, device });
    expect(tab.items.has(KEY_ITEM)).toBe(false);
    expect(device.items.has(KEY_ITEM)).toBe(false);
  });

  it('works without a device store (localStorage refused)', () => {
    const tab = memory();
    saveKey({ tab, device: null }, 'evk_1', true);
    expect(readKey({ tab, device: null })).toBe('evk_1');
    expect(isRemembered({ tab, device: null })).toBe(false);
    forgetKey({ tab, device: null });
    expect(readKey({ tab, device: null })).toBeNull();
  });
});
