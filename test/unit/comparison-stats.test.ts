import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compareMetricScores,
  holmAdjust,
  metricVerdict,
  overallVerdict,
  pairedComparison,
  type ScorePair,
} from '../../shared/domain/runs/comparison-stats.js';
import { studentT, tCdf, tQuantile } from '../../shared/domain/runs/student-t.js';

// ---------- an independent Student t, written from the textbook formulas ----------

/** ln Γ(x), Lanczos (g = 7, 9 terms), x > 0. */
function logGamma(x: number): number {
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const z = x - 1;
  let a = c[0]!;
  const t = z + 7.5;
  for (let i = 1; i < 9; i++) a += c[i]! / (z + i);
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

/**
 * The regularised incomplete beta I_x(a, b): the continued fraction (modified Lentz). `y` is
 * 1 − x given exactly by the caller (computing it here would lose the digits of an x near 1).
 */
function incompleteBeta(x: number, a: number, b: number, y = 1 - x): number {
  if (x <= 0) return 0;
  if (y <= 0) return 1;
  if (x > (a + 1) / (a + b + 2)) return 1 - incompleteBeta(y, b, a, x);
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(y)) / a;
  const tiny = 1e-300;
  let f = 1;
  let c = 1;
  let d = 0;
  for (let i = 0; i <= 10_000; i++) {
    const m = Math.floor(i / 2);
    let numerator: number;
    if (i === 0) numerator = 1;
    else if (i % 2 === 0) numerator = (m * (b - m) * x) / ((a + 2 * m - 1) * (a + 2 * m));
    else numerator = -((a + m) * (a + b + m) * x) / ((a + 2 * m) * (a + 2 * m + 1));
    d = 1 + numerator * d;
    if (Math.abs(d) < tiny) d = tiny;
    d = 1 / d;
    c = 1 + numerator / c;
    if (Math.abs(c) < tiny) c = tiny;
    const cd = c * d;
    f *= cd;
    if (Math.abs(1 - cd) < 1e-15) return front * (f - 1);
  }
  throw new Error('incomplete beta did not converge');
}

/** P(T ≤ t), ν degrees of freedom: ½·I_{ν/(ν+t²)}(ν/2, ½) in the lower tail. */
function ownTCdf(t: number, df: number): number {
  const tail = 0.5 * incompleteBeta(df / (df + t * t), df / 2, 0.5, (t * t) / (df + t * t));
  return t <= 0 ? tail : 1 - tail;
}

/** The t quantile by bisection of the CDF above. */
function ownTQuantile(p: number, df: number): number {
  let lo = -1e4;
  let hi = 1e4;
  for (let i = 0; i < 200; i++) {
    const mid = (lo + hi) / 2;
    if (ownTCdf(mid, df) < p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** P(T ≤ −a), a ≥ 0, by brute force: ½ − ∫₀ᵃ density, composite Simpson on 20,000 intervals. */
function integratedLowerTail(a: number, df: number): number {
  const k = Math.exp(logGamma((df + 1) / 2) - logGamma(df / 2)) / Math.sqrt(df * Math.PI);
  const density = (x: number) => k * (1 + (x * x) / df) ** (-(df + 1) / 2);
  const steps = 20_000;
  const h = a / steps;
  let s = density(0) + density(a);
  for (let i = 1; i < steps; i++) s += (i % 2 === 0 ? 2 : 4) * density(i * h);
  return 0.5 - (s * h) / 3;
}

/** Holm, straight from the definition: for each metric, the max over every metric ranked at or before it. */
function naiveHolm(ps: (number | null)[]): (number | null)[] {
  const present = ps.flatMap((p, i) => (p === null ? [] : [{ p, i }]));
  const m = present.length;
  const rank = (x: { p: number; i: number }) =>
    present.filter((y) => y.p < x.p || (y.p === x.p && y.i < x.i)).length + 1;
  return ps.map((p, i) => {
    if (p === null) return null;
    const mine = rank({ p, i });
    let best = 0;
    for (const y of present) {
      const r = rank(y);
      if (r <= mine) best = Math.max(best, Math.min(1, (m - r + 1) * y.p));
    }
    return best;
  });
}

/** Holm's sequential procedure at level α: reject in order while p(j) ≤ α/(m − j + 1). */
function holmRejects(ps: (number | null)[], alpha: number): boolean[] {
  const present = ps.flatMap((p, i) => (p === null ? [] : [{ p, i }])).sort((a, b) => a.p - b.p || a.i - b.i);
  const rejected = ps.map(() => false);
  for (let j = 0; j < present.length; j++) {
    if (present[j]!.p > alpha / (present.length - j)) break;
    rejected[present[j]!.i] = true;
  }
  return rejected;
}

const close = (actual: number | null, expected: number, digits = 9) => {
  expect(actual).not.toBeNull();
  expect(Math.abs(actual! - expected)).toBeLessThanOrEqual(10 ** -digits * Math.max(1, Math.abs(expected)));
};

const pairsOf = (diffs: number[], base = 0.5): ScorePair[] => diffs.map((d) => ({ base, run: base + d }));

describe('Student t (stdlib) against an independent implementation', () => {
  it('matches the closed forms of 1 and 2 degrees of freedom', () => {
    // ν = 1 is the Cauchy distribution; ν = 2 has F(t) = ½ + t / (2√(t² + 2)).
    close(tQuantile(0.975, 1), Math.tan(0.475 * Math.PI), 12);
    close(tQuantile(0.8, 1), Math.tan(0.3 * Math.PI), 12);
    close(tCdf(2, 1), 0.5 + Math.atan(2) / Math.PI, 14);
    close(tQuantile(0.975, 2), 0.95 / Math.sqrt(2 * 0.975 * 0.025), 12);
    close(tQuantile(0.8, 2), 0.6 / Math.sqrt(2 * 0.8 * 0.2), 12);
    close(tCdf(-3, 2), 0.5 - 3 / (2 * Math.sqrt(11)), 14);
    // Many degrees of freedom: the normal's 1.959964.
    close(tQuantile(0.975, 1e7), 1.959963984540054, 6);
  });

  it('CDF and quantiles agree with the incomplete-beta CDF and with numeric integration of the density', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 200 }),
        fc.double({ min: 0, max: 12, noNaN: true }),
        fc.constantFrom(0.6, 0.8, 0.9, 0.975, 0.995),
        (df, a, p) => {
          close(tCdf(-a, df), ownTCdf(-a, df), 9);
          close(tCdf(-a, df), integratedLowerTail(a, df), 8);
          close(tQuantile(p, df), ownTQuantile(p, df), 9);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('pairedComparison', () => {
  it('two cases (1 degree of freedom): every figure by hand', () => {
    // d = 0.1 and 0.3: d̄ = 0.2, s_d = √0.02, SE = √0.02/√2 = 0.1, t = 2.
    const c = pairedComparison(
      [
        { base: 0.5, run: 0.6 },
        { base: 0.2, run: 0.5 },
      ],
      studentT,
    );
    expect(c.n).toBe(2);
    close(c.baseScore, 0.35, 15);
    close(c.score, 0.55, 15);
    close(c.difference, 0.2, 15);
    close(c.standardError, 0.1, 15);
    const t975 = Math.tan(0.475 * Math.PI); // 12.7062
    close(c.confidenceInterval![0], 0.2 - t975 * 0.1, 12);
    close(c.confidenceInterval![1], 0.2 + t975 * 0.1, 12);
    close(c.pValue, 1 - (2 * Math.atan(2)) / Math.PI, 12); // 0.2952
    close(c.minimumDetectableEffect, (t975 + Math.tan(0.3 * Math.PI)) * 0.1, 12); // 1.4083
  });

  it('three cases (2 degrees of freedom): every figure by hand', () => {
    // d = 0.1, 0.2, 0.3: d̄ = 0.2, s_d = 0.1, SE = 0.1/√3, t = 2√3.
    const c = pairedComparison(pairsOf([0.1, 0.2, 0.3], 0.25), studentT);
    close(c.difference, 0.2, 14);
    close(c.standardError, 0.1 / Math.sqrt(3), 14);
    const t975 = 0.95 / Math.sqrt(2 * 0.975 * 0.025); // 4.3027
    const t80 = 0.6 / Math.sqrt(2 * 0.8 * 0.2); // 1.0607
    close(c.confidenceInterval![0], 0.2 - (t975 * 0.1) / Math.sqrt(3), 12); // −0.0484
    close(c.confidenceInterval![1], 0.2 + (t975 * 0.1) / Math.sqrt(3), 12); // 0.4484
    const t = 2 * Math.sqrt(3);
    close(c.pValue, 1 - t / Math.sqrt(t * t + 2), 12); // 0.0742
    close(c.minimumDetectableEffect, ((t975 + t80) * 0.1) / Math.sqrt(3), 12);
  });

  it('no spread: p is 1 when nothing moved and 0 when every case moved alike; the interval is a point', () => {
    const same = pairedComparison(pairsOf([0, 0, 0, 0]), studentT);
    expect(same).toMatchObject({ difference: 0, standardError: 0, confidenceInterval: [0, 0], pValue: 1 });
    expect(same.minimumDetectableEffect).toBe(0);
    // 0.1 three times: the sum/3 would be 1 ulp off; all-equal differences are recognised exactly.
    const moved = pairedComparison(
      [
        { base: 0.2, run: 0.3 },
        { base: 0.2, run: 0.3 },
        { base: 0.2, run: 0.3 },
      ],
      studentT,
    );
    expect(moved.standardError).toBe(0);
    expect(moved.pValue).toBe(0);
    expect(moved.difference).toBe(0.3 - 0.2);
    expect(moved.confidenceInterval).toEqual([0.3 - 0.2, 0.3 - 0.2]);
  });

  it('fewer than two cases: the means only, everything else null', () => {
    expect(pairedComparison([], studentT)).toEqual({
      n: 0,
      baseScore: null,
      score: null,
      difference: null,
      standardError: null,
      confidenceInterval: null,
      pValue: null,
      minimumDetectableEffect: null,
    });
    expect(pairedComparison([{ base: 0.4, run: 0.9 }], studentT)).toEqual({
      n: 1,
      baseScore: 0.4,
      score: 0.9,
      difference: 0.9 - 0.4,
      standardError: null,
      confidenceInterval: null,
      pValue: null,
      minimumDetectableEffect: null,
    });
  });

  it('every figure agrees with an independent computation (property)', () => {
    const score = fc.double({ min: 0, max: 1, noNaN: true });
    fc.assert(
      fc.property(fc.array(fc.record({ base: score, run: score }), { minLength: 2, maxLength: 60 }), (pairs) => {
        const c = pairedComparison(pairs, studentT);
        const n = pairs.length;
        const d = pairs.map((p) => p.run - p.base);
        let dbar = 0;
        for (const x of d) dbar += x / n;
        const sd = Math.sqrt(d.reduce((s, x) => s + (x - dbar) ** 2, 0) / (n - 1));
        const se = sd / Math.sqrt(n);
        expect(c.n).toBe(n);
        close(c.baseScore, pairs.reduce((s, p) => s + p.base, 0) / n, 12);
        close(c.score, pairs.reduce((s, p) => s + p.run, 0) / n, 12);
        close(c.difference, dbar, 12);
        close(c.difference, c.score! - c.baseScore!, 12);
        close(c.standardError, se, 10);
        const t975 = ownTQuantile(0.975, n - 1);
        close(c.confidenceInterval![0], dbar - t975 * se, 8);
        close(c.confidenceInterval![1], dbar + t975 * se, 8);
        close(c.minimumDetectableEffect, (t975 + ownTQuantile(0.8, n - 1)) * se, 8);
        if (c.standardError === 0) expect(c.pValue).toBe(c.difference === 0 ? 1 : 0);
        else if (se > 1e-12) close(c.pValue, 2 * ownTCdf(-Math.abs(dbar / se), n - 1), 8);
        expect(c.pValue).toBeGreaterThanOrEqual(0);
        expect(c.pValue).toBeLessThanOrEqual(1);
      }),
      { numRuns: 300 },
    );
  });
});

describe('holmAdjust', () => {
  it('adjusts by hand: sorted 0.01, 0.03, 0.04 of m = 3; nulls stay null and do not count', () => {
    expect(holmAdjust([0.01, 0.04, 0.03, null])).toEqual([0.03, 0.06, 0.06, null]);
    expect(holmAdjust([0.5, 0.6])).toEqual([1, 1]);
    expect(holmAdjust([0.02])).toEqual([0.02]);
    expect(holmAdjust([null, null])).toEqual([null, null]);
    expect(holmAdjust([])).toEqual([]);
  });

  it('agrees with the definition computed naively and with the step-down procedure (property)', () => {
    const p = fc.oneof(
      fc.constant(null),
      fc.double({ min: 0, max: 1, noNaN: true }),
      fc.constantFrom(0, 0.01, 0.025, 0.05, 1),
    );
    fc.assert(
      fc.property(fc.array(p, { maxLength: 12 }), (ps) => {
        const adjusted = holmAdjust(ps);
        expect(adjusted).toEqual(naiveHolm(ps));
        for (const [i, raw] of ps.entries()) {
          if (raw === null) {
            expect(adjusted[i]).toBeNull();
            continue;
          }
          expect(adjusted[i]).toBeGreaterThanOrEqual(raw);
          expect(adjusted[i]).toBeLessThanOrEqual(1);
        }
        for (const alpha of [0.01, 0.05, 0.1])
          expect(adjusted.map((a) => a !== null && a <= alpha)).toEqual(holmRejects(ps, alpha));
      }),
      { numRuns: 500 },
    );
  });
});

describe('verdicts', () => {
  it('per metric: not enough data under two cases, else by the adjusted p and the sign of d̄', () => {
    expect(metricVerdict({ n: 1, difference: 0.5, adjustedPValue: null })).toBe('not_enough_data');
    expect(metricVerdict({ n: 5, difference: 0.1, adjustedPValue: 0.049 })).toBe('improved');
    expect(metricVerdict({ n: 5, difference: -0.1, adjustedPValue: 0.049 })).toBe('regressed');
    expect(metricVerdict({ n: 5, difference: -0.1, adjustedPValue: 0.05 })).toBe('no_significant_change');
    expect(metricVerdict({ n: 5, difference: 0, adjustedPValue: 0 })).toBe('no_significant_change');
  });

  it('overall: a regression wins, then an improvement; not enough data only when no metric had two cases', () => {
    const m = (verdict: any, n = 5) => ({ verdict, n });
    expect(overallVerdict([m('improved'), m('regressed')])).toBe('regressed');
    expect(overallVerdict([m('improved'), m('no_significant_change')])).toBe('improved');
    expect(overallVerdict([m('not_enough_data', 1), m('no_significant_change')])).toBe('no_significant_change');
    expect(overallVerdict([m('not_enough_data', 1), m('not_enough_data', 0)])).toBe('not_enough_data');
    expect(overallVerdict([])).toBe('not_enough_data');
  });

  it('compareMetricScores orders by name then id and adjusts across the metrics', () => {
    const strong = pairsOf([-0.2, -0.21, -0.19, -0.2, -0.22, -0.18]);
    const weak = pairsOf([0.05, -0.04, 0.06, -0.03]);
    const out = compareMetricScores(
      [
        { metricId: 'met_b', name: 'tone', pairs: weak, onlyInBase: 1, onlyInRun: 0 },
        { metricId: 'met_z', name: 'accuracy', pairs: strong, onlyInBase: 0, onlyInRun: 2 },
        { metricId: 'met_a', name: 'tone', pairs: pairsOf([0.3]), onlyInBase: 0, onlyInRun: 0 },
      ],
      studentT,
    );
    expect(out.metrics.map((x) => x.metricId)).toEqual(['met_z', 'met_a', 'met_b']);
    const [accuracy, single, tone] = out.metrics;
    expect(accuracy).toMatchObject({ verdict: 'regressed', onlyInRun: 2, n: 6 });
    expect(single).toMatchObject({ verdict: 'not_enough_data', pValue: null, adjustedPValue: null, n: 1 });
    expect(tone).toMatchObject({ verdict: 'no_significant_change', onlyInBase: 1 });
    expect([accuracy!.adjustedPValue, tone!.adjustedPValue]).toEqual(holmAdjust([accuracy!.pValue, tone!.pValue]));
    expect(out.verdict).toBe('regressed');
  });
});
