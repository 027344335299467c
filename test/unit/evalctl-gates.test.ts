import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { checkGates, type Gate, gateArgument, gatesSummary, unknownGateMetrics } from '../../cli/gates.js';
import { exitCodeOf } from '../../cli/report.js';
import type { MetricComparison, Run, RunComparison } from '../../shared/schemas/runs.js';

const metric = (metricId: string, name: string, score: number | null, passRate: number | null) => ({
  metricId,
  name,
  evaluated: 7,
  failed: 0,
  skipped: 0,
  score,
  confidenceInterval: null,
  passRate,
  passAllK: null,
  passAnyK: null,
});

const run = {
  id: 'run_B',
  name: 'nightly',
  status: 'COMPLETED',
  repetitions: 1,
  threshold: 0.5,
  progress: { total: 7, pending: 0, running: 0, completed: 7, failed: 0 },
  metrics: [
    metric('met_text_similarity', 'text_similarity', 0.23, 0.2857),
    metric('met_no_pii', 'no_pii', 0.857, 0.857),
    metric('met_judged', 'judged', null, null),
  ],
} as unknown as Run;

const compared = (metricId: string, name: string, baseScore: number, score: number): MetricComparison => ({
  metricId,
  name,
  n: 7,
  onlyInBase: 0,
  onlyInRun: 0,
  baseScore,
  score,
  difference: score - baseScore,
  standardError: 0.2,
  confidenceInterval: [-0.8, 0.1],
  pValue: 0.12,
  adjustedPValue: 0.24,
  verdict: 'no_significant_change',
  minimumDetectableEffect: 0.546,
});

const comparison: RunComparison = {
  runId: 'run_B',
  baseRunId: 'run_A',
  pairedBy: 'testCaseId',
  verdict: 'no_significant_change',
  metrics: [
    compared('met_no_pii', 'no_pii', 0.857, 0.857),
    compared('met_text_similarity', 'text_similarity', 0.589, 0.23),
  ],
};

/** Parses flags as commander does: each value through the parser, the list carried along. */
const parse = (flag: Gate['flag'], metricRequired: boolean, ...values: string[]) =>
  values.reduce<Gate[] | undefined>((list, v) => gateArgument(flag, metricRequired)(v, list), undefined);

describe('evalctl floors: the flags', () => {
  it('take <metric>=<x> (repeatable; the last = splits) and, where allowed, a bare <x> for every metric', () => {
    expect(parse('--min-score', true, 'text_similarity=0.5', 'met_no_pii=0.9', 'a=b=1')).toEqual([
      { flag: '--min-score', metric: 'text_similarity', limit: 0.5 },
      { flag: '--min-score', metric: 'met_no_pii', limit: 0.9 },
      { flag: '--min-score', metric: 'a=b', limit: 1 },
    ]);
    expect(parse('--min-pass-rate', false, '0.8')).toEqual([{ flag: '--min-pass-rate', limit: 0.8 }]);
    expect(parse('--max-drop', false, '0', 'no_pii=0.05')).toEqual([
      { flag: '--max-drop', limit: 0 },
      { flag: '--max-drop', metric: 'no_pii', limit: 0.05 },
    ]);
  });

  it('refuse a malformed value with the form expected', () => {
    const refuse = (flag: Gate['flag'], metricRequired: boolean, value: string, message: RegExp) => {
      expect(() => gateArgument(flag, metricRequired)(value)).toThrow(InvalidArgumentError);
      expect(() => gateArgument(flag, metricRequired)(value)).toThrow(message);
    };
    refuse('--min-score', true, '0.5', /^must be <metric>=<x>: a metric's name or id, then a number from 0 to 1/);
    refuse('--min-score', true, '=0.5', /^must be <metric>=<x>/);
    for (const bad of ['x=', 'x=abc', 'x=1.5', 'x=-0.1', 'x=NaN', 'x=Infinity'])
      refuse('--min-score', true, bad, /^must be <metric>=<x> with x a number from 0 to 1$/);
    refuse('--min-pass-rate', false, '80%', /^must be <x> or <metric>=<x> with x a number from 0 to 1$/);
    refuse('--max-drop', false, '', /^must be <x> or <metric>=<x>/);
  });
});

describe('evalctl floors: the decisions', () => {
  it('a score or pass rate below its floor breaks it, naming the metric, the figure and the floor; at the floor it holds', () => {
    const checks = checkGates(
      [
        { flag: '--min-score', metric: 'text_similarity', limit: 0.5 },
        { flag: '--min-score', metric: 'met_no_pii', limit: 0.857 },
        { flag: '--min-pass-rate', metric: 'no_pii', limit: 0.8 },
      ],
      run,
    );
    expect(checks.map((c) => [c.metric, c.figure, c.held])).toEqual([
      ['text_similarity', 0.23, false],
      ['no_pii', 0.857, true],
      ['no_pii', 0.857, true],
    ]);
    expect(checks[0]!.message).toBe(
      'text_similarity: score 0.230 is below the floor 0.5 (--min-score text_similarity=0.5)',
    );
    expect(checks[1]!.message).toBe(
      'no_pii: score 0.857 is at or above the floor 0.857 (--min-score met_no_pii=0.857)',
    );
    expect(exitCodeOf(run, undefined, checks)).toBe(1);
    expect(exitCodeOf(run, undefined, checks.slice(1))).toBe(0);
  });

  it('a floor without a metric holds for every metric; a metric with no score breaks it (never green by accident)', () => {
    const checks = checkGates([{ flag: '--min-pass-rate', limit: 0.8 }], run);
    expect(checks.map((c) => [c.metric, c.held])).toEqual([
      ['text_similarity', false],
      ['no_pii', true],
      ['judged', false],
    ]);
    expect(checks[0]!.message).toBe('text_similarity: pass rate 0.286 is below the floor 0.8 (--min-pass-rate 0.8)');
    expect(checks[2]!.message).toBe(
      'judged: no pass rate (no evaluation of it succeeded), so it is not above the floor 0.8 (--min-pass-rate 0.8)',
    );
  });

  it('--max-drop: a fall larger than allowed breaks it, significant or not; a fall within it, or a rise, holds', () => {
    const checks = checkGates([{ flag: '--max-drop', limit: 0.1 }], run, comparison);
    expect(checks.map((c) => [c.metric, c.held])).toEqual([
      ['no_pii', true],
      ['text_similarity', false],
    ]);
    expect(checks[1]!.figure).toBeCloseTo(0.359, 9);
    expect(checks[1]!.message).toBe(
      'text_similarity: fell by 0.359 against run_A (0.589 → 0.230 over 7 paired cases), more than the 0.1 allowed (--max-drop 0.1)',
    );
    expect(checks[0]!.message).toBe(
      'no_pii: did not fall (+0.000) against run_A (0.857 → 0.857 over 7 paired cases), within the 0.1 allowed (--max-drop 0.1)',
    );
    // The verdict alone would let this pass: the fall is within what n = 7 can detect.
    expect(exitCodeOf(run, comparison)).toBe(0);
    expect(exitCodeOf(run, comparison, checks)).toBe(1);
    // A fall of exactly the limit holds, whatever the floating point says (0.3 − 0.4 = −0.10000000000000003).
    const exact = { ...comparison, metrics: [compared('met_no_pii', 'no_pii', 0.4, 0.3)] };
    expect(checkGates([{ flag: '--max-drop', metric: 'no_pii', limit: 0.1 }], run, exact)[0]!.held).toBe(true);
  });

  it('--max-drop on a metric the comparison could not pair breaks it, saying so', () => {
    const [check] = checkGates([{ flag: '--max-drop', metric: 'judged', limit: 0.2 }], run, comparison);
    expect(check).toMatchObject({ metric: 'judged', figure: null, held: false });
    expect(check!.message).toBe(
      'judged: no test case was scored in both runs, so its fall against run_A cannot be checked (--max-drop judged=0.2)',
    );
  });

  it('a floor naming a metric the run does not have is refused, listing the run’s metrics', () => {
    expect(
      unknownGateMetrics(
        [
          { flag: '--min-score', metric: 'similarity', limit: 0.5 },
          { flag: '--min-score', metric: 'met_no_pii', limit: 0.5 },
          { flag: '--min-pass-rate', limit: 0.5 },
        ],
        run,
      ),
    ).toEqual([
      '--min-score: run run_B has no metric named "similarity" (its metrics: text_similarity, no_pii, judged)',
    ]);
  });

  it('prints the broken floors first', () => {
    const checks = checkGates(
      [
        { flag: '--min-score', metric: 'no_pii', limit: 0.5 },
        { flag: '--min-score', metric: 'text_similarity', limit: 0.5 },
      ],
      run,
    );
    expect(gatesSummary(checks).split('\n')).toEqual([
      'gates: 1 of 2 checks broken',
      '  BROKEN  text_similarity: score 0.230 is below the floor 0.5 (--min-score text_similarity=0.5)',
      '  held    no_pii: score 0.857 is at or above the floor 0.5 (--min-score no_pii=0.5)',
    ]);
    expect(gatesSummary(checks.slice(0, 1))).toBe(
      'gates: held (1 check)\n  held    no_pii: score 0.857 is at or above the floor 0.5 (--min-score no_pii=0.5)',
    );
  });
});
