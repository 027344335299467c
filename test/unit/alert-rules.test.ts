import { describe, expect, it } from 'vitest';
import { alertDecision } from '../../shared/domain/monitors/rules.js';
import { addScore, emptySums, type Sums } from '../../shared/domain/monitors/statistics.js';

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
