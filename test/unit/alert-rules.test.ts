import { describe, expect, it } from 'vitest';
import { alertDecision } from '../../shared/domain/monitors/rules.js';
import {
  addScore,
  emptySums,
  MIN_SESSIONS_FOR_INTERVAL,
  scorePoint,
  type Sums,
} from '../../shared/domain/monitors/statistics.js';

const sumsOf = (scores: [number, number][]): Sums => scores.reduce<Sums>((s, [x, w]) => addScore(s, x, w), emptySums());
const rule = { below: 0.5, minSessions: 3 };

describe('alert rule decisions', () => {
  it('opens only from exactly minSessions scored sessions on', () => {
    expect(
      alertDecision(
        rule,
        sumsOf([
          [0, 1],
          [0, 1],
        ]),
        false,
      ),
    ).toBe('none');
    expect(
      alertDecision(
        rule,
        sumsOf([
          [0, 1],
          [0, 1],
          [0, 1],
        ]),
        false,
      ),
    ).toBe('open');
    expect(
      alertDecision(
        rule,
        sumsOf([
          [0, 1],
          [0, 1],
          [0, 1],
          [0.2, 1],
        ]),
        false,
      ),
    ).toBe('open');
    expect(alertDecision(rule, emptySums(), false)).toBe('none');
  });

  it('treats a score exactly at below as not below: no alert opens, an open one resolves', () => {
    const atBelow = sumsOf([
      [0.25, 1],
      [0.75, 1],
      [0.5, 2],
    ]);
    expect(atBelow.swx / atBelow.sw).toBe(0.5);
    expect(alertDecision(rule, atBelow, false)).toBe('none');
    expect(alertDecision(rule, atBelow, true)).toBe('resolve');
    const justUnder = sumsOf([
      [0.25, 1],
      [0.75, 1],
      [0.49, 2],
    ]);
    expect(alertDecision(rule, justUnder, false)).toBe('open');
    expect(alertDecision(rule, justUnder, true)).toBe('none');
  });

  it('weighs each session by its sampling weight, like the results', () => {
    // Unweighted mean 0.6 (above), weighted (0.2·4 + 1·1 + 1·1) / 6 = 0.4667 (below).
    const weighted = sumsOf([
      [0.2, 4],
      [1, 1],
      [1, 1],
    ]);
    expect(alertDecision(rule, weighted, false)).toBe('open');
  });

  it('decides nothing on fewer than minSessions sessions, even to resolve', () => {
    expect(
      alertDecision(
        rule,
        sumsOf([
          [1, 1],
          [1, 1],
        ]),
        true,
      ),
    ).toBe('none');
    expect(
      alertDecision(
        rule,
        sumsOf([
          [1, 1],
          [1, 1],
          [1, 1],
        ]),
        true,
      ),
    ).toBe('resolve');
    expect(alertDecision({ below: 0, minSessions: 1 }, sumsOf([[0, 1]]), false)).toBe('none');
    expect(alertDecision({ below: 1, minSessions: 1 }, sumsOf([[0.999, 1]]), false)).toBe('open');
    expect(alertDecision({ below: 1, minSessions: 1 }, sumsOf([[1, 1]]), true)).toBe('resolve');
  });
});

/** `passing` sessions scoring 1 and `failing` scoring 0, each of weight 1. */
const passFail = (passing: number, failing: number): Sums =>
  sumsOf([
    ...Array.from({ length: passing }, (): [number, number] => [1, 1]),
    ...Array.from({ length: failing }, (): [number, number] => [0, 1]),
  ]);

describe('alert rule decisions with confidence "interval"', () => {
  const interval = { below: 0.5, minSessions: 3, confidence: 'interval' as const };
  const point = { ...interval, confidence: 'point' as const };

  it('opens when the upper end of the results route’s 95% interval is below `below`', () => {
    // 10 of 40 pass: score 0.25, 0.25 ± 1.96·√(0.1875/39) = [0.114, 0.386].
    const low = passFail(10, 30);
    const ci = scorePoint(low).confidenceInterval!;
    expect(ci.upper).toBeCloseTo(0.25 + 1.96 * Math.sqrt(0.1875 / 39), 12);
    expect(ci.upper).toBeLessThan(0.5);
    expect(alertDecision(interval, low, false)).toBe('open');
    expect(alertDecision(point, low, false)).toBe('open');
  });

  it('stays closed when the score is below `below` but the upper end of its interval is not', () => {
    // 18 of 40 pass: score 0.45 (below 0.5), upper end 0.45 + 1.96·√(0.2475/39) = 0.606.
    const dip = passFail(18, 22);
    expect(dip.swx / dip.sw).toBeCloseTo(0.45, 12);
    expect(scorePoint(dip).confidenceInterval!.upper).toBeGreaterThan(0.5);
    expect(alertDecision(interval, dip, false)).toBe('none');
    expect(alertDecision(point, dip, false)).toBe('open');
    // The upper end exactly at `below` is not below it: every score 0.5 gives the interval [0.5, 0.5].
    const flat = sumsOf(Array.from({ length: 40 }, (): [number, number] => [0.5, 1]));
    expect(scorePoint(flat).confidenceInterval).toEqual({ lower: 0.5, upper: 0.5 });
    expect(alertDecision(interval, flat, false)).toBe('none');
  });

  it('never opens on fewer than 30 scored sessions, nor on fewer than minSessions', () => {
    expect(MIN_SESSIONS_FOR_INTERVAL).toBe(30);
    // 29 sessions scoring 0: no interval yet, whatever minSessions says; a point rule opens.
    const few = passFail(0, 29);
    expect(scorePoint(few).confidenceInterval).toBeNull();
    expect(alertDecision(interval, few, false)).toBe('none');
    expect(alertDecision({ ...interval, minSessions: 1 }, few, false)).toBe('none');
    expect(alertDecision(point, few, false)).toBe('open');
    // From exactly 30 the interval is there ([0, 0]): it opens.
    expect(alertDecision(interval, passFail(0, 30), false)).toBe('open');
    // 40 sessions have an interval, but a rule asking for 50 decides nothing.
    expect(alertDecision({ ...interval, minSessions: 50 }, passFail(10, 30), false)).toBe('none');
    expect(alertDecision(interval, emptySums(), false)).toBe('none');
  });

  it('resolves on the point score at or above `below` over minSessions sessions, interval or not', () => {
    // 3 sessions scoring 1: no interval, but the score 1 is back above: resolves.
    expect(alertDecision(interval, passFail(3, 0), true)).toBe('resolve');
    // score exactly 0.5 over 40 sessions, its lower end well under 0.5: resolves.
    const even = passFail(20, 20);
    expect(scorePoint(even).confidenceInterval!.lower).toBeLessThan(0.5);
    expect(alertDecision(interval, even, true)).toBe('resolve');
    // score 0.45 with the upper end above 0.5: would not open, and does not resolve either.
    expect(alertDecision(interval, passFail(18, 22), true)).toBe('none');
    // fewer than minSessions: nothing, even to resolve.
    expect(alertDecision(interval, passFail(2, 0), true)).toBe('none');
  });

  it('treats a rule without a confidence as a point rule', () => {
    const dip = passFail(18, 22);
    expect(alertDecision({ below: 0.5, minSessions: 3 }, dip, false)).toBe(alertDecision(point, dip, false));
    expect(alertDecision({ below: 0.5, minSessions: 3 }, passFail(0, 29), false)).toBe('open');
  });
});
