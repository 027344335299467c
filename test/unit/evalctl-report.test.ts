import { describe, expect, it } from 'vitest';
import { progressReporter } from '../../cli/progress.js';
import { comparisonSummary, exitCodeOf, runSummary } from '../../cli/report.js';
import type { Run, RunComparison } from '../../shared/schemas/runs.js';

const run: Run = {
  id: 'run_B',
  organizationId: 'org_X',
  productId: 'prod_X',
  versionId: 'ver_X',
  userId: 'usr_X',
  name: 'nightly',
  testIds: ['test_X'],
  specificationIds: [],
  metricIds: ['met_a'],
  repetitions: 3,
  threshold: 0.7,
  channel: 'HTTP',
  status: 'COMPLETED',
  progress: { total: 30, pending: 0, running: 0, completed: 29, failed: 1 },
  metrics: [
    {
      metricId: 'met_a',
      name: 'politeness',
      evaluated: 29,
      failed: 1,
      skipped: 0,
      score: 0.8123,
      confidenceInterval: null,
      passRate: 0.75,
      passAllK: 0.5,
      passAnyK: 1,
    },
  ],
  error: null,
  createdAt: '2026-11-24T06:00:00.000Z',
  startedAt: '2026-11-24T06:00:01.000Z',
  finishedAt: '2026-11-24T06:02:00.000Z',
};

const comparison: RunComparison = {
  runId: 'run_B',
  baseRunId: 'run_A',
  pairedBy: 'testCaseId',
  verdict: 'regressed',
  metrics: [
    {
      metricId: 'met_a',
      name: 'politeness',
      n: 10,
      onlyInBase: 0,
      onlyInRun: 0,
      baseScore: 0.9,
      score: 0.8123,
      difference: -0.0877,
      standardError: 0.02,
      confidenceInterval: [-0.1329, -0.0425],
      pValue: 0.0017,
      adjustedPValue: 0.0017,
      verdict: 'regressed',
      minimumDetectableEffect: 0.066,
    },
  ],
};

describe('evalctl report', () => {
  it('prints the run and the comparison as aligned text', () => {
    expect(runSummary(run).split('\n')).toEqual([
      'run run_B (nightly): COMPLETED, 29 of 30 sessions completed, 1 failed; 3 repetitions, threshold 0.7',
      '  metric      score  95% CI  pass rate  pass^3  pass@3  scored  failed',
      '  politeness  0.812  –       75.0%      50.0%   100.0%  29      1',
    ]);
    expect(comparisonSummary(comparison).split('\n')).toEqual([
      'comparison of run_B with run_A (paired by test case): regressed',
      '  metric      difference  95% CI            adjusted p  n   base → score   verdict',
      '  politeness  -0.088      [-0.133, -0.043]  0.0017      10  0.900 → 0.812  regressed',
    ]);
  });

  it('says what a comparison that found nothing could have detected, and what would help', () => {
    const m = comparison.metrics[0]!;
    const nothing: RunComparison = {
      ...comparison,
      verdict: 'no_significant_change',
      metrics: [
        {
          ...m,
          name: 'text_similarity',
          n: 7,
          baseScore: 0.589,
          score: 0.23,
          difference: -0.359,
          confidenceInterval: [-0.93, 0.21],
          adjustedPValue: 0.17,
          verdict: 'no_significant_change',
          minimumDetectableEffect: 0.5463,
        },
        { ...m, name: 'no_pii', n: 7, difference: 0, verdict: 'no_significant_change', minimumDetectableEffect: 0 },
        { ...m, name: 'tone', n: 1, verdict: 'not_enough_data', minimumDetectableEffect: null },
        { ...m, name: 'judged', verdict: 'improved' },
      ],
    };
    expect(comparisonSummary(nothing).split('\n').slice(-3)).toEqual([
      '  text_similarity: no significant change; n = 7 can detect ±0.55; add cases or --repetitions',
      "  no_pii: no significant change; no case's score moved (n = 7)",
      '  tone: not enough data: n = 1 paired case, a comparison needs at least 2; add cases both runs score',
    ]);
  });

  it('exits 1 when a metric regressed or the run did not complete, else 0', () => {
    expect(exitCodeOf(run)).toBe(0);
    expect(exitCodeOf(run, comparison)).toBe(1);
    const fine = {
      ...comparison,
      verdict: 'improved' as const,
      metrics: [{ ...comparison.metrics[0]!, verdict: 'improved' as const }],
    };
    expect(exitCodeOf(run, fine)).toBe(0);
    expect(exitCodeOf({ ...run, status: 'FAILED' }, fine)).toBe(1);
    expect(exitCodeOf({ ...run, status: 'CANCELLED' })).toBe(1);
  });

  it('off a terminal, prints a progress line per 10% and the final status', () => {
    const lines: string[] = [];
    const stream = { isTTY: false, write: (s: string) => lines.push(s) } as unknown as NodeJS.WriteStream;
    const p = progressReporter('run run_B', stream);
    for (let done = 0; done <= 40; done++) p.update(done, 40, 'RUNNING');
    p.update(40, 40, 'COMPLETED', true);
    p.stop();
    expect(lines).toHaveLength(12);
    expect(lines[0]).toBe('run run_B: 0% (0/40 sessions, RUNNING)\n');
    expect(lines[1]).toBe('run run_B: 10% (4/40 sessions, RUNNING)\n');
    expect(lines.at(-1)).toBe('run run_B: 100% (40/40 sessions, COMPLETED)\n');
  });
});
