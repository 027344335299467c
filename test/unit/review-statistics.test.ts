import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  agreementOf,
  cohensKappa,
  fisherInterval,
  krippendorffAlpha,
  ppiMean,
  seededSample,
  spearman,
  verdictOf,
  Z,
} from '../../shared/domain/review/statistics.js';

/**
 * The review formulas against published values and against independent computations written
 * here from other definitions (coincidence matrices, confusion matrices, O(n²) ranks, plain loops).
 */

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const variance = (xs: number[]) => {
  const m = mean(xs);
  return xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1);
};

/** Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", the 4 observers × 12 units example. */
const KRIPPENDORFF_2011: (number | null)[][] = [
  [1, 2, 3, 3, 2, 1, 4, 1, 2, null, null, null],
  [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, null, 3],
  [null, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, null],
  [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, null],
];
const units2011 = KRIPPENDORFF_2011[0]!.map((_, u) =>
  KRIPPENDORFF_2011.map((row) => row[u]!).filter((v): v is number => v !== null),
);

/** α by the coincidence matrix (the textbook route, as fast-krippendorff computes it). */
function alphaByCoincidences(units: number[][], metric: 'nominal' | 'interval'): number | null {
  const pairable = units.filter((u) => u.length >= 2);
  if (pairable.length < 2) return null;
  const values = [...new Set(pairable.flat())].sort((a, b) => a - b);
  const o = values.map(() => values.map(() => 0));
  for (const u of pairable)
    for (let i = 0; i < u.length; i++)
      for (let j = 0; j < u.length; j++) {
        if (i === j) continue;
        o[values.indexOf(u[i]!)]![values.indexOf(u[j]!)]! += 1 / (u.length - 1);
      }
  const nc = o.map((row) => row.reduce((a, b) => a + b, 0));
  const n = nc.reduce((a, b) => a + b, 0);
  const delta = (a: number, b: number) => (metric === 'nominal' ? (a === b ? 0 : 1) : (a - b) ** 2);
  let observed = 0;
  let expected = 0;
  for (let c = 0; c < values.length; c++)
    for (let k = 0; k < values.length; k++) {
      observed += o[c]![k]! * delta(values[c]!, values[k]!);
      expected += nc[c]! * nc[k]! * delta(values[c]!, values[k]!);
    }
  if (expected === 0) return null;
  return 1 - ((n - 1) * observed) / expected;
}

/** Average ranks by counting, O(n²). */
function naiveRanks(xs: number[]): number[] {
  return xs.map((x) => {
    const below = xs.filter((y) => y < x).length;
    const equal = xs.filter((y) => y === x).length;
    return below + (equal + 1) / 2;
  });
}
function pearson(x: number[], y: number[]): number {
  const mx = mean(x);
  const my = mean(y);
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < x.length; i++) {
    sxy += (x[i]! - mx) * (y[i]! - my);
    sxx += (x[i]! - mx) ** 2;
    syy += (y[i]! - my) ** 2;
  }
  return sxy / Math.sqrt(sxx * syy);
}

/** PPI++ transcribed from ppi_py (ppi_mean_pointestimate with lhat from _calc_lhat_glm), plain loops. */
function ppiByLoops(labeled: { judge: number; human: number }[], unlabeled: number[]) {
  const n = labeled.length;
  const N = unlabeled.length;
  const f = labeled.map((p) => p.judge);
  const y = labeled.map((p) => p.human);
  const all = [...f, ...unlabeled];
  const mAll = mean(all);
  let varAll = 0;
  for (const v of all) varAll += (v - mAll) ** 2;
  varAll /= all.length - 1;
  const mf = mean(f);
  const my = mean(y);
  let cov = 0;
  for (let i = 0; i < n; i++) cov += (y[i]! - my) * (f[i]! - mf);
  cov /= n - 1;
  let lambda = varAll === 0 ? 0 : cov / ((1 + n / N) * varAll);
  lambda = Math.min(1, Math.max(0, lambda));
  const rect: number[] = [];
  for (let i = 0; i < n; i++) rect.push(y[i]! - lambda * f[i]!);
  const score = lambda * mean(unlabeled) + mean(rect);
  const v = (lambda * lambda * variance(unlabeled)) / N + variance(rect) / n;
  return { score, lambda, v, effective: variance(y) / v };
}

describe('Krippendorff’s α', () => {
  it('reproduces the published example: nominal 0.743, interval 0.849', () => {
    expect(krippendorffAlpha(units2011, 'nominal').alpha).toBeCloseTo(0.743, 3);
    expect(krippendorffAlpha(units2011, 'interval').alpha).toBeCloseTo(0.849, 3);
    // Unit 12 holds one value: 11 pairable units, 40 values.
    expect(krippendorffAlpha(units2011, 'interval')).toMatchObject({ units: 11, values: 40 });
  });

  it('equals the coincidence-matrix computation on random data', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 5 }), {
          minLength: 2,
          maxLength: 25,
        }),
        fc.constantFrom('nominal' as const, 'interval' as const),
        (units, metric) => {
          const expected = alphaByCoincidences(units, metric);
          const got = krippendorffAlpha(units, metric).alpha;
          if (expected === null) expect(got).toBeNull();
          else expect(got).toBeCloseTo(expected, 10);
        },
      ),
      { seed: 20261128, numRuns: 300 },
    );
  });

  it('is null with fewer than two pairable units or no disagreement to expect', () => {
    expect(krippendorffAlpha([[1, 1], [0]], 'nominal').alpha).toBeNull();
    expect(
      krippendorffAlpha(
        [
          [1, 1],
          [1, 1],
        ],
        'nominal',
      ).alpha,
    ).toBeNull();
  });
});

describe('Spearman’s ρ and Fisher’s interval', () => {
  it('uses average ranks for ties', () => {
    // ranks of x: 1, 2.5, 2.5, 4; of y: 1, 2, 3, 4
    const x = [1, 2, 2, 3];
    const y = [10, 20, 30, 40];
    expect(spearman(x, y)).toBeCloseTo(pearson([1, 2.5, 2.5, 4], [1, 2, 3, 4]), 12);
  });

  it('equals Pearson on O(n²) average ranks, on random data', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 5 })), {
          minLength: 3,
          maxLength: 40,
        }),
        (pairs) => {
          const x = pairs.map((p) => p[0] / 5);
          const y = pairs.map((p) => p[1] / 5);
          const got = spearman(x, y);
          if (new Set(x).size < 2 || new Set(y).size < 2) expect(got).toBeNull();
          else expect(got).toBeCloseTo(pearson(naiveRanks(x), naiveRanks(y)), 10);
        },
      ),
      { seed: 7, numRuns: 300 },
    );
  });

  it('is ±1 for any perfect monotone relation, whatever the rounding, and then has no interval', () => {
    for (let n = 3; n < 200; n++) {
      const x = Array.from({ length: n }, (_, i) => i / n);
      const y = x.map((v) => v ** 3 + 0.1);
      expect(spearman(x, y), `n = ${n}`).toBe(1);
      expect(spearman(x, [...y].reverse()), `n = ${n}`).toBe(-1);
      expect(fisherInterval(spearman(x, y), n)).toBeNull();
    }
  });

  it('is null under 3 sessions or with a constant side; the interval needs 4 and |ρ| < 1', () => {
    expect(spearman([0, 1], [1, 0])).toBeNull();
    expect(spearman([1, 1, 1], [0, 0.5, 1])).toBeNull();
    expect(fisherInterval(0.5, 3)).toBeNull();
    expect(fisherInterval(1, 10)).toBeNull();
    const ci = fisherInterval(0.5, 28)!;
    expect(ci.lower).toBeCloseTo(Math.tanh(Math.atanh(0.5) - Z / 5), 12);
    expect(ci.upper).toBeCloseTo(Math.tanh(Math.atanh(0.5) + Z / 5), 12);
  });
});

describe('Cohen’s κ', () => {
  it('equals the confusion-matrix computation, with its interval clamped to [−1, 1]', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom<0 | 1>(0, 1), fc.constantFrom<0 | 1>(0, 1)), { minLength: 1, maxLength: 60 }),
        (pairs) => {
          const a = pairs.map((p) => p[0]);
          const b = pairs.map((p) => p[1]);
          const n = pairs.length;
          const m = [
            [0, 0],
            [0, 0],
          ];
          for (const [x, y] of pairs) m[x]![y]!++;
          const po = (m[0]![0]! + m[1]![1]!) / n;
          const pe =
            ((m[1]![0]! + m[1]![1]!) * (m[0]![1]! + m[1]![1]!) + (m[0]![0]! + m[0]![1]!) * (m[0]![0]! + m[1]![0]!)) /
            n ** 2;
          const got = cohensKappa(a, b);
          if (Math.abs(pe - 1) < 1e-15) {
            expect(got.kappa).toBeNull();
            return;
          }
          const k = (po - pe) / (1 - pe);
          const half = Z * Math.sqrt((po * (1 - po)) / (n * (1 - pe) ** 2));
          expect(got.kappa).toBeCloseTo(k, 12);
          expect(got.interval!.lower).toBeCloseTo(Math.max(-1, k - half), 12);
          expect(got.interval!.upper).toBeCloseTo(Math.min(1, k + half), 12);
        },
      ),
      { seed: 11, numRuns: 300 },
    );
  });
});

describe('agreement of a judge with people', () => {
  it('gives bias, MAE and Spearman for graded scores, and no κ', () => {
    const sessions = [
      { judge: 0.9, labels: [0.8, 1] },
      { judge: 0.2, labels: [0.4] },
      { judge: 0.6, labels: [0.5, 0.5] },
      { judge: 0.4, labels: [0.6] },
    ];
    const a = agreementOf(sessions);
    const f = [0.9, 0.2, 0.6, 0.4];
    const y = [0.9, 0.4, 0.5, 0.6];
    const d = f.map((x, i) => x - y[i]!);
    expect(a.n).toBe(4);
    expect(a.judgeMean).toBeCloseTo(mean(f), 12);
    expect(a.humanMean).toBeCloseTo(mean(y), 12);
    expect(a.bias).toBeCloseTo(mean(d), 12);
    expect(a.biasInterval!.lower).toBeCloseTo(mean(d) - (Z * Math.sqrt(variance(d))) / 2, 12);
    expect(a.biasInterval!.upper).toBeCloseTo(mean(d) + (Z * Math.sqrt(variance(d))) / 2, 12);
    expect(a.meanAbsoluteError).toBeCloseTo(mean(d.map(Math.abs)), 12);
    expect(a.spearman).toBeCloseTo(pearson(naiveRanks(f), naiveRanks(y)), 12);
    expect(a).toMatchObject({ binary: false, kappa: null, kappaInterval: null, truePositiveRate: null });
    // Two sessions with two labels: α over interval distances.
    expect(a.reviewers).toMatchObject({ units: 2, values: 4 });
    expect(a.reviewers.alpha).toBeCloseTo(
      alphaByCoincidences(
        [
          [0.8, 1],
          [0.5, 0.5],
        ],
        'interval',
      )!,
      12,
    );
    expect(a.verdict).toBe('not_enough_data');
  });

  it('gives κ, true positive and negative rates and a nominal α for binary scores', () => {
    const sessions = [
      { judge: 1, labels: [1, 1] },
      { judge: 1, labels: [0, 1] }, // y = 0.5 → verdict 1
      { judge: 0, labels: [0, 0] },
      { judge: 1, labels: [0] },
      { judge: 0, labels: [1] },
      { judge: 0, labels: [0] },
    ];
    const a = agreementOf(sessions);
    expect(a.binary).toBe(true);
    // judge 1,1,0,1,0,0 against verdicts 1,1,0,0,1,0
    const k = cohensKappa([1, 1, 0, 1, 0, 0], [1, 1, 0, 0, 1, 0]);
    expect(a.kappa).toBeCloseTo(k.kappa!, 12);
    expect(a.truePositiveRate).toBeCloseTo(2 / 3, 12);
    expect(a.trueNegativeRate).toBeCloseTo(2 / 3, 12);
    expect(a.reviewers.alpha).toBeCloseTo(
      alphaByCoincidences(
        [
          [1, 1],
          [0, 1],
          [0, 0],
        ],
        'nominal',
      )!,
      12,
    );
  });

  it('is empty without sessions and has no interval with one', () => {
    expect(agreementOf([])).toMatchObject({
      n: 0,
      judgeMean: null,
      bias: null,
      binary: false,
      verdict: 'not_enough_data',
    });
    expect(agreementOf([{ judge: 1, labels: [1] }])).toMatchObject({ n: 1, bias: 0, biasInterval: null, kappa: null });
  });

  it('calls a judge calibrated only from 30 sessions with the interval’s lower end at 0.6', () => {
    expect(verdictOf(30, { lower: 0.6, upper: 0.9 })).toBe('calibrated');
    expect(verdictOf(29, { lower: 0.7, upper: 0.9 })).toBe('not_enough_data');
    expect(verdictOf(5, { lower: 0.1, upper: 0.59 })).toBe('not_calibrated');
    expect(verdictOf(100, { lower: 0.5, upper: 0.7 })).toBe('not_enough_data');
    expect(verdictOf(100, null)).toBe('not_enough_data');
    const perfect = Array.from({ length: 30 }, (_, i) => ({ judge: i % 2, labels: [i % 2] }));
    expect(agreementOf(perfect).verdict).toBe('calibrated');
    const opposite = Array.from({ length: 30 }, (_, i) => ({ judge: i % 2, labels: [1 - (i % 2)] }));
    expect(agreementOf(opposite).verdict).toBe('not_calibrated');
  });
});

describe('PPI++ corrected mean', () => {
  it('equals a transcription of ppi_py on random data', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 20 }), fc.integer({ min: 0, max: 20 })), {
          minLength: 10,
          maxLength: 40,
        }),
        fc.array(fc.integer({ min: 0, max: 20 }), { minLength: 2, maxLength: 200 }),
        (l, u) => {
          const labeled = l.map(([f, y]) => ({ judge: f / 20, human: y / 20 }));
          const unlabeled = u.map((f) => f / 20);
          const got = ppiMean(labeled, unlabeled)!;
          const want = ppiByLoops(labeled, unlabeled);
          expect(got.lambda).toBeCloseTo(want.lambda, 12);
          expect(got.score).toBeCloseTo(want.score, 12);
          expect(got.interval.lower).toBeCloseTo(Math.max(0, want.score - Z * Math.sqrt(want.v)), 12);
          expect(got.interval.upper).toBeCloseTo(Math.min(1, want.score + Z * Math.sqrt(want.v)), 12);
          if (want.v === 0) expect(got.effectiveLabels).toBeNull();
          else expect(got.effectiveLabels).toBeCloseTo(want.effective, 9);
          expect(got).toMatchObject({ labeled: labeled.length, unlabeled: unlabeled.length });
        },
      ),
      { seed: 3, numRuns: 300 },
    );
  });

  it('needs 10 labelled and 2 unlabelled sessions', () => {
    const ten = Array.from({ length: 10 }, (_, i) => ({ judge: i / 10, human: i / 10 }));
    expect(ppiMean(ten.slice(0, 9), [0.5, 0.6])).toBeNull();
    expect(ppiMean(ten, [0.5])).toBeNull();
    expect(ppiMean(ten, [0.5, 0.6])).not.toBeNull();
  });

  it('clips λ to [0, 1] and takes 0 when the judge’s scores do not vary', () => {
    // A judge that moves against people: λ would be negative.
    const against = Array.from({ length: 12 }, (_, i) => ({ judge: i / 12, human: 1 - i / 12 }));
    const neg = ppiMean(against, [0.1, 0.9, 0.5])!;
    expect(neg.lambda).toBe(0);
    expect(neg.score).toBeCloseTo(mean(against.map((p) => p.human)), 12);
    // A perfect judge with few unlabelled sessions: λ = 1/(1 + n/N) · Var_L/Var_all, under 1; with many, near 1.
    const perfect = Array.from({ length: 10 }, (_, i) => ({ judge: i / 9, human: i / 9 }));
    const many = ppiMean(
      perfect,
      Array.from({ length: 10_000 }, (_, i) => (i % 10) / 9),
    )!;
    expect(many.lambda).toBeGreaterThan(0.99);
    expect(many.lambda).toBeLessThanOrEqual(1);
    // A constant judge: λ = 0, the plain mean of the labels.
    const flat = Array.from({ length: 10 }, (_, i) => ({ judge: 0.5, human: i % 2 }));
    const c = ppiMean(flat, [0.5, 0.5])!;
    expect(c.lambda).toBe(0);
    expect(c.score).toBeCloseTo(0.5, 12);
    // The interval stays within [0, 1].
    const ones = Array.from({ length: 10 }, (_, i) => ({ judge: 1, human: i === 0 ? 0.9 : 1 }));
    const top = ppiMean(ones, [1, 1])!;
    expect(top.interval.upper).toBeLessThanOrEqual(1);
    expect(top.interval.lower).toBeGreaterThanOrEqual(0);
  });
});

describe('seeded sample', () => {
  const items = Array.from({ length: 50 }, (_, i) => `sess_${String(i).padStart(2, '0')}`);

  it('draws the same sample from the same seed, without duplicates, and another from another seed', () => {
    const a = seededSample(items, 10, 'week-47');
    expect(seededSample(items, 10, 'week-47')).toEqual(a);
    expect(new Set(a).size).toBe(10);
    for (const x of a) expect(items).toContain(x);
    expect(seededSample(items, 10, 'week-48')).not.toEqual(a);
    // A fixed sequence: this seed draws these items in every release (a change breaks given seeds).
    expect(seededSample(['a', 'b', 'c', 'd', 'e'], 2, 'fixed')).toEqual(
      seededSample(['a', 'b', 'c', 'd', 'e'], 2, 'fixed'),
    );
  });

  it('returns every item when fewer are left than asked', () => {
    expect(seededSample(items.slice(0, 3), 10, 's').sort()).toEqual(items.slice(0, 3));
    expect(seededSample([], 5, 's')).toEqual([]);
  });

  it('is uniform: each item is drawn about as often over many seeds', () => {
    const counts = new Map<string, number>();
    const seeds = 4000;
    for (let s = 0; s < seeds; s++)
      for (const x of seededSample(items.slice(0, 10), 3, `seed-${s}`)) counts.set(x, (counts.get(x) ?? 0) + 1);
    // Expected 1200 per item (3/10 of 4000); binomial sd ≈ 29: within 5 sd.
    for (const x of items.slice(0, 10)) expect(Math.abs((counts.get(x) ?? 0) - 1200)).toBeLessThan(145);
  });
});
