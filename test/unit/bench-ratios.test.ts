import { describe, expect, it } from 'vitest';
import { median, ratioInterval, verdictOf } from '../../bench/ratios.js';

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
});
