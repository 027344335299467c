import { describe, expect, it } from 'vitest';
import { goalsMet, median, ratioInterval, settledWithin, verdictOf } from '../../bench/ratios.js';

/** Times around `center`, spread ±`spread` by a fixed pattern (no randomness in the test itself). */
const times = (center: number, spread: number, n = 21) =>
  Array.from({ length: n }, (_, i) => center + spread * Math.sin(i * 2.399963));

describe('bench ratios', () => {
  it('takes the median of odd and even counts', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });

  it('gives a point interval when every round has the same ratio', () => {
    const ref = times(80, 6);
    expect(ratioInterval(ref, ref)).toEqual([1, 1]);
    const [low, high] = ratioInterval(
      ref.map((t) => t * 1.3),
      ref,
    );
    expect(low).toBeCloseTo(1.3, 10);
    expect(high).toBeCloseTo(1.3, 10);
  });

  it('holds the ratio of the medians, and widens with the noise', () => {
    const ref = times(80, 3);
    const narrow = ratioInterval(times(100, 3).reverse(), ref);
    const wide = ratioInterval(times(100, 15).reverse(), ref);
    const ratio = median(times(100, 3)) / median(ref);
    expect(narrow[0]).toBeLessThanOrEqual(ratio);
    expect(narrow[1]).toBeGreaterThanOrEqual(ratio);
    expect(wide[1] - wide[0]).toBeGreaterThan(narrow[1] - narrow[0]);
    expect(narrow[0]).toBeGreaterThan(1.1);
  });

  it('prints the same interval for the same times', () => {
    const own = times(95, 10).reverse();
    const ref = times(80, 8);
    expect(ratioInterval(own, ref)).toEqual(ratioInterval(own, ref));
  });

  it('calls a goal over only when the whole interval is above it', () => {
    expect(verdictOf([1.21, 1.3], 1.2)).toBe('over');
    expect(verdictOf([1.1, 1.2], 1.2)).toBe('within');
    expect(verdictOf([1.15, 1.25], 1.2)).toBe('close');
  });

  it('meets the goals only when every function is at or under the line, none over by its interval, and the median is', () => {
    const goals = { maxRatio: 1.2, maxMedian: 1.1 };
    const within = { ratio: 1.1, interval: [1.05, 1.15] as const };
    const close = { ratio: 1.19, interval: [1.15, 1.24] as const };
    expect(goalsMet([within, close], 1.05, goals)).toBe(true);
    // A median over the line, an interval wholly over it, a median ratio over its goal: not met.
    expect(goalsMet([within, { ratio: 1.21, interval: [1.15, 1.25] }], 1.05, goals)).toBe(false);
    expect(goalsMet([within, { ratio: 1.2, interval: [1.21, 1.3] }], 1.05, goals)).toBe(false);
    expect(goalsMet([within, close], 1.11, goals)).toBe(false);
    // With only some functions timed, the median goal is not judged; with none, nothing is met.
    expect(goalsMet([within], undefined, goals)).toBe(true);
    expect(goalsMet([], 1, goals)).toBe(false);
  });

  it('calls a function settled within the goal only when its median and its whole interval are', () => {
    expect(settledWithin({ ratio: 1.1, interval: [1.05, 1.2] }, 1.2)).toBe(true);
    expect(settledWithin({ ratio: 1.1, interval: [1.05, 1.25] }, 1.2)).toBe(false);
    expect(settledWithin({ ratio: 1.21, interval: [1.1, 1.2] }, 1.2)).toBe(false);
  });
});
