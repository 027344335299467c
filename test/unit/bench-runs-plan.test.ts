import { describe, expect, it } from 'vitest';
import { planRuns, wallPerCaseRatio } from '../../bench/runs-plan.js';
import { MAX_RUN_CASES } from '../../shared/schemas/runs.js';

describe('bench:runs workload plan', () => {
  it('runs a workload over the cap as as few runs as the cap allows, evenly', () => {
    expect(MAX_RUN_CASES).toBe(5000);
    expect(planRuns(10_000, MAX_RUN_CASES)).toEqual([5000, 5000]);
    expect(planRuns(10_001, MAX_RUN_CASES)).toEqual([3334, 3334, 3333]);
    expect(planRuns(5000, MAX_RUN_CASES)).toEqual([5000]);
    expect(planRuns(1000, MAX_RUN_CASES)).toEqual([1000]);
  });

  it('takes a number of runs when given, and refuses one that would put more than the cap in a run', () => {
    expect(planRuns(2000, MAX_RUN_CASES, 2)).toEqual([1000, 1000]);
    expect(planRuns(7, MAX_RUN_CASES, 3)).toEqual([3, 2, 2]);
    expect(() => planRuns(10_000, MAX_RUN_CASES, 1)).toThrow(/at most 5000 sessions/);
    expect(() => planRuns(3, MAX_RUN_CASES, 4)).toThrow(/runs must be/);
    expect(() => planRuns(0, MAX_RUN_CASES)).toThrow(/cases must be/);
  });

  it('compares wall time per case with the reference’s', () => {
    expect(wallPerCaseRatio({ ms: 100_000, cases: 10_000 }, { ms: 10_000, cases: 1000 })).toBe(1);
    expect(wallPerCaseRatio({ ms: 130_000, cases: 10_000 }, { ms: 10_000, cases: 1000 })).toBeCloseTo(1.3, 12);
    expect(wallPerCaseRatio({ ms: 40_000, cases: 10_000 }, { ms: 10_000, cases: 1000 })).toBeCloseTo(0.4, 12);
  });
});
