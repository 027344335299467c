import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { addScore, emptySums, mergeSums, scorePoint, type Sums } from '../../shared/domain/monitors/statistics.js';
import {
  isSampled,
  passesFilters,
  samplingWeight,
  terms,
  describe as describeTurn,
} from '../../shared/domain/monitors/sampling.js';
import { desiredStatus, windowDays } from '../../shared/domain/monitors/rules.js';

const sumsOf = (pairs: [number, number][]): Sums => pairs.reduce((s, [x, w]) => addScore(s, x, w), emptySums());

/** Independent computation from raw scores: weighted mean and the variance of the weighted mean. */
function bruteForce(pairs: [number, number][]) {
  const n = pairs.length;
  const W = pairs.reduce((a, [, w]) => a + w, 0);
  const mean = pairs.reduce((a, [x, w]) => a + w * x, 0) / W;
  const v = (pairs.reduce((a, [x, w]) => a + w * w * (x - mean) ** 2, 0) / (W * W)) * (n / (n - 1));
  return { mean, half: 1.96 * Math.sqrt(v) };
}

describe('weighted score statistics', () => {
  it('matches a brute-force weighted mean and variance, with unequal weights after a sampling change', () => {
    const pairs: [number, number][] = Array.from({ length: 40 }, (_, i) => [
      ((i * 37) % 11) / 10,
      i < 20 ? samplingWeight(50) : samplingWeight(10),
    ]);
    const point = scorePoint(sumsOf(pairs));
    const ref = bruteForce(pairs);
    expect(point.score).toBeCloseTo(ref.mean, 12);
    expect(point.confidenceInterval!.lower).toBeCloseTo(Math.max(0, ref.mean - ref.half), 12);
    expect(point.confidenceInterval!.upper).toBeCloseTo(Math.min(1, ref.mean + ref.half), 12);
    expect(point.collectingData).toBe(false);
  });

  it('gives no interval at 29 scored sessions and one at 30', () => {
    const pairs = (n: number) => Array.from({ length: n }, (_, i) => [i % 2, 1] as [number, number]);
    expect(scorePoint(sumsOf(pairs(29)))).toMatchObject({
      scoredSessions: 29,
      confidenceInterval: null,
      collectingData: true,
    });
    expect(scorePoint(sumsOf(pairs(29))).score).toBeCloseTo(14 / 29, 12);
    const thirty = scorePoint(sumsOf(pairs(30)));
    expect(thirty.collectingData).toBe(false);
    expect(thirty.confidenceInterval).not.toBeNull();
  });

  it('collapses the interval to the point when every score is equal, and clamps at 0 and 1', () => {
    expect(
      scorePoint(sumsOf(Array.from({ length: 30 }, () => [0.7, 2] as [number, number]))).confidenceInterval,
    ).toEqual({
      lower: expect.closeTo(0.7, 12),
      upper: expect.closeTo(0.7, 12),
    });
    const nearOne = scorePoint(sumsOf([...Array.from({ length: 29 }, () => [1, 1] as [number, number]), [0, 1]]));
    expect(nearOne.confidenceInterval!.upper).toBe(1);
    const nearZero = scorePoint(sumsOf([...Array.from({ length: 29 }, () => [0, 1] as [number, number]), [1, 1]]));
    expect(nearZero.confidenceInterval!.lower).toBe(0);
  });

  it('reports null score when nothing was scored', () => {
    expect(scorePoint(emptySums())).toEqual({
      scoredSessions: 0,
      score: null,
      confidenceInterval: null,
      collectingData: true,
    });
  });

  it('merging buckets equals computing over their union (property)', () => {
    const pair = fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.constantFrom(1, 2, 4, 10, 100 / 3));
    fc.assert(
      fc.property(
        fc.array(pair, { minLength: 1, maxLength: 80 }),
        fc.array(fc.nat(6), { minLength: 80, maxLength: 80 }),
        (pairs, cuts) => {
          const buckets: [number, number][][] = Array.from({ length: 7 }, () => []);
          pairs.forEach((p, i) => {
            buckets[cuts[i]!]!.push(p);
          });
          const merged = scorePoint(mergeSums(...buckets.map(sumsOf)));
          const whole = scorePoint(sumsOf(pairs));
          expect(merged.scoredSessions).toBe(whole.scoredSessions);
          expect(merged.score!).toBeCloseTo(whole.score!, 9);
          if (whole.confidenceInterval) {
            expect(merged.confidenceInterval!.lower).toBeCloseTo(whole.confidenceInterval.lower, 9);
            expect(merged.confidenceInterval!.upper).toBeCloseTo(whole.confidenceInterval.upper, 9);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('sampling', () => {
  it('is deterministic and hits within 1 point of the percentage over 100,000 ids (property)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1, max: 99, noNaN: true }),
        fc.string({ minLength: 1, maxLength: 10 }),
        (pct, monitorSuffix) => {
          const monitorId = `mon_${monitorSuffix}`;
          let hits = 0;
          for (let i = 0; i < 100_000; i++) if (isSampled(monitorId, `sess_${i}`, pct)) hits++;
          expect(Math.abs((hits / 100_000) * 100 - pct)).toBeLessThan(1);
          expect(isSampled(monitorId, 'sess_7', pct)).toBe(isSampled(monitorId, 'sess_7', pct));
        },
      ),
      { numRuns: 5 },
    );
  }, 60_000); // 500,000 hashes: ~1.5 s alone, several times that on a loaded CI runner

  it('filters on the chosen side with trimmed, case-insensitive terms', () => {
    const turns = [{ input: 'I want a REFUND', output: 'Sure, processing.' }];
    expect(terms(' refund , ,Invoice ')).toEqual(['refund', 'invoice']);
    expect(
      passesFilters({ filterQuery: 'refund', filterTarget: 'INPUT', excludeQuery: null, excludeTarget: null }, turns),
    ).toBe(true);
    expect(
      passesFilters({ filterQuery: 'refund', filterTarget: 'OUTPUT', excludeQuery: null, excludeTarget: null }, turns),
    ).toBe(false);
    expect(
      passesFilters(
        { filterQuery: 'invoice,processing', filterTarget: 'EITHER', excludeQuery: null, excludeTarget: null },
        turns,
      ),
    ).toBe(true);
    expect(
      passesFilters({ filterQuery: null, filterTarget: null, excludeQuery: 'sure', excludeTarget: 'OUTPUT' }, turns),
    ).toBe(false);
    expect(
      passesFilters({ filterQuery: null, filterTarget: null, excludeQuery: 'sure', excludeTarget: 'INPUT' }, turns),
    ).toBe(true);
    expect(describeTurn(`  ${'x'.repeat(200)}`)).toHaveLength(120);
  });
});

describe('scanner rules', () => {
  const facts = { monitorUsed: 0, orgMonthlyCredits: 100, orgUsed: 0, attemptsSinceUserWrite: [] as { ok: boolean }[] };
  it('applies CAPPED, NO_CREDITS, FAILING in order, else returns system statuses to ACTIVE', () => {
    expect(desiredStatus({ status: 'ACTIVE', monthlyCreditCap: 10 }, { ...facts, monitorUsed: 10, orgUsed: 100 })).toBe(
      'CAPPED',
    );
    expect(desiredStatus({ status: 'ACTIVE', monthlyCreditCap: null }, { ...facts, orgUsed: 100 })).toBe('NO_CREDITS');
    expect(
      desiredStatus({ status: 'ACTIVE', monthlyCreditCap: null }, { ...facts, orgMonthlyCredits: null, orgUsed: 1e9 }),
    ).toBe('ACTIVE');
    const failed = Array.from({ length: 5 }, () => ({ ok: false }));
    expect(
      desiredStatus({ status: 'ACTIVE', monthlyCreditCap: null }, { ...facts, attemptsSinceUserWrite: failed }),
    ).toBe('FAILING');
    expect(
      desiredStatus(
        { status: 'ACTIVE', monthlyCreditCap: null },
        { ...facts, attemptsSinceUserWrite: failed.slice(1) },
      ),
    ).toBe('ACTIVE');
    expect(
      desiredStatus(
        { status: 'FAILING', monthlyCreditCap: null },
        { ...facts, attemptsSinceUserWrite: [{ ok: true }, ...failed] },
      ),
    ).toBe('ACTIVE');
    expect(desiredStatus({ status: 'CAPPED', monthlyCreditCap: 10 }, facts)).toBe('ACTIVE');
    expect(desiredStatus({ status: 'PAUSED', monthlyCreditCap: 10 }, { ...facts, monitorUsed: 99 })).toBe('PAUSED');
  });

  it('lays out the window as UTC days ending today', () => {
    expect(windowDays(new Date('2026-03-02T05:00:00Z'), 3)).toEqual(['2026-02-28', '2026-03-01', '2026-03-02']);
  });
});
