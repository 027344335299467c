import { mean, sampleCovariance, sampleRankCorrelation, sampleVariance } from 'simple-statistics';
import type { Interval } from '../../schemas/review.js';

/**
 * Every formula of human review, each written once: the judge's agreement with people, the
 * agreement among people, the judge's scores corrected with people's labels, and the seeded
 * sample that makes those labels a random sample.
 */

/** The standard normal's 97.5% quantile: two-sided 95% intervals. */
export const Z = 1.959964;
/** The level a verdict asks of the agreement interval's lower end (and that its upper end must reach). */
export const CALIBRATED_AT = 0.6;
/** Sessions a `calibrated` verdict needs at least. */
export const CALIBRATION_MIN_N = 30;

const clamp = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x));
const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

/**
 * Spearman's ρ: Pearson's correlation of the average ranks (ties share the mean of their ranks);
 * null when n < 3 or either side is constant.
 */
export function spearman(x: readonly number[], y: readonly number[]): number | null {
  if (x.length < 3 || new Set(x).size < 2 || new Set(y).size < 2) return null;
  const rho = sampleRankCorrelation([...x], [...y]);
  // A perfect monotone relation comes out of floating point as 1 ± 1e-16; it is ±1 (so its Fisher
  // interval is null whatever the rounding, not sometimes an interval and sometimes none).
  return Math.abs(rho) > 1 - 1e-12 ? Math.sign(rho) : clamp(rho, -1, 1);
}

/** Fisher's z interval of ρ: tanh(atanh ρ ± Z/√(n − 3)); null when n < 4 or |ρ| = 1. */
export function fisherInterval(rho: number | null, n: number): Interval | null {
  if (rho === null || n < 4 || Math.abs(rho) === 1) return null;
  const z = Math.atanh(rho);
  const half = Z / Math.sqrt(n - 3);
  return { lower: Math.tanh(z - half), upper: Math.tanh(z + half) };
}

/**
 * Cohen's κ of two binary ratings (Cohen 1960): p_o the share of agreement,
 * p_e = p₁(a)·p₁(b) + p₀(a)·p₀(b), κ = (p_o − p_e)/(1 − p_e) (null when p_e = 1), with the
 * large-sample interval κ ± Z·√(p_o(1 − p_o)/(n(1 − p_e)²)) clamped to [−1, 1].
 */
export function cohensKappa(
  a: readonly (0 | 1)[],
  b: readonly (0 | 1)[],
): { kappa: number | null; interval: Interval | null } {
  const n = a.length;
  if (n === 0) return { kappa: null, interval: null };
  const po = a.filter((x, i) => x === b[i]).length / n;
  const pa = sum(a) / n;
  const pb = sum(b) / n;
  const pe = pa * pb + (1 - pa) * (1 - pb);
  if (pe === 1) return { kappa: null, interval: null };
  const kappa = (po - pe) / (1 - pe);
  const half = Z * Math.sqrt((po * (1 - po)) / (n * (1 - pe) ** 2));
  return { kappa, interval: { lower: clamp(kappa - half, -1, 1), upper: clamp(kappa + half, -1, 1) } };
}

/** Σ_{i≠j} δ²(v_i, v_j) over ordered pairs of distinct positions, in O(n). */
function pairDisagreement(values: readonly number[], metric: 'nominal' | 'interval'): number {
  const n = values.length;
  if (metric === 'interval') {
    // Σ_{i≠j} (v_i − v_j)² = 2(n·Σv² − (Σv)²)
    return 2 * (n * sum(values.map((v) => v * v)) - sum(values) ** 2);
  }
  // Σ_{i≠j} [v_i ≠ v_j] = n² − Σ_c n_c²
  const counts = new Map<number, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return n * n - sum([...counts.values()].map((c) => c * c));
}

/**
 * Krippendorff's α (Krippendorff 2011, "Computing Krippendorff's Alpha-Reliability"), pairwise:
 * units u with m_u ≥ 2 values are pairable, n_α = Σ m_u;
 * D_o = (1/n_α) Σ_u (1/(m_u − 1)) Σ_{i≠j∈u} δ²(v_i, v_j);
 * D_e = (1/(n_α(n_α − 1))) Σ_{i≠j over all pairable values} δ²(v_i, v_j); α = 1 − D_o/D_e, with
 * δ² = (a − b)² (interval) or 0/1 (nominal). alpha is null with fewer than 2 units or D_e = 0.
 */
export function krippendorffAlpha(
  units: readonly (readonly number[])[],
  metric: 'nominal' | 'interval',
): { alpha: number | null; units: number; values: number } {
  const pairable = units.filter((u) => u.length >= 2);
  const values = pairable.flat();
  const n = values.length;
  if (pairable.length < 2) return { alpha: null, units: pairable.length, values: n };
  const observed = sum(pairable.map((u) => pairDisagreement(u, metric) / (u.length - 1))) / n;
  const expected = pairDisagreement(values, metric) / (n * (n - 1));
  return { alpha: expected === 0 ? null : 1 - observed / expected, units: pairable.length, values: n };
}

/** One session in an agreement: the judge's score f and each human label of it. */
export interface LabelledSession {
  judge: number;
  labels: readonly number[];
}

export type Verdict = 'calibrated' | 'not_calibrated' | 'not_enough_data';

export interface AgreementFigures {
  n: number;
  judgeMean: number | null;
  humanMean: number | null;
  bias: number | null;
  biasInterval: Interval | null;
  meanAbsoluteError: number | null;
  spearman: number | null;
  spearmanInterval: Interval | null;
  binary: boolean;
  kappa: number | null;
  kappaInterval: Interval | null;
  truePositiveRate: number | null;
  trueNegativeRate: number | null;
  reviewers: { alpha: number | null; units: number; values: number };
  verdict: Verdict;
}

/**
 * The verdict on a judge: `calibrated` when n ≥ 30 and the interval's lower end is ≥ 0.6,
 * `not_calibrated` when its upper end is < 0.6, `not_enough_data` otherwise (or without one).
 */
export function verdictOf(n: number, interval: Interval | null): Verdict {
  if (!interval) return 'not_enough_data';
  if (n >= CALIBRATION_MIN_N && interval.lower >= CALIBRATED_AT) return 'calibrated';
  if (interval.upper < CALIBRATED_AT) return 'not_calibrated';
  return 'not_enough_data';
}

/**
 * A judge against people, over sessions with a judge score f and at least one label (human score
 * y the mean of its labels): means; bias = mean(f − y) ± Z·s/√n (s the sample sd, null when
 * n < 2); mean absolute error; Spearman's ρ with Fisher's interval; when every f and every label
 * is 0 or 1, Cohen's κ of f against the human verdict (y ≥ 0.5) with its interval and the judge's
 * true positive and negative rates; Krippendorff's α among the labels of sessions with two or more
 * (nominal when binary, else interval); and the verdict on κ's (binary) or ρ's interval.
 */
export function agreementOf(sessions: readonly LabelledSession[]): AgreementFigures {
  const n = sessions.length;
  const f = sessions.map((s) => s.judge);
  const y = sessions.map((s) => mean([...s.labels]));
  const d = f.map((x, i) => x - y[i]!);
  const bias = n === 0 ? null : mean(d);
  const biasInterval =
    bias === null || n < 2
      ? null
      : (() => {
          const half = (Z * Math.sqrt(sampleVariance(d))) / Math.sqrt(n);
          return { lower: bias - half, upper: bias + half };
        })();
  const rho = spearman(f, y);
  const spearmanInterval = fisherInterval(rho, n);
  const isBit = (v: number) => v === 0 || v === 1;
  const binary = n > 0 && f.every(isBit) && sessions.every((s) => s.labels.every(isBit));
  let kappa: { kappa: number | null; interval: Interval | null } = { kappa: null, interval: null };
  let truePositiveRate: number | null = null;
  let trueNegativeRate: number | null = null;
  if (binary) {
    const judged = f as (0 | 1)[];
    const verdict = y.map((v) => (v >= 0.5 ? 1 : 0)) as (0 | 1)[];
    kappa = cohensKappa(judged, verdict);
    const positives = verdict.flatMap((v, i) => (v === 1 ? [judged[i]!] : []));
    const negatives = verdict.flatMap((v, i) => (v === 0 ? [judged[i]!] : []));
    truePositiveRate = positives.length === 0 ? null : sum(positives) / positives.length;
    trueNegativeRate = negatives.length === 0 ? null : negatives.filter((x) => x === 0).length / negatives.length;
  }
  return {
    n,
    judgeMean: n === 0 ? null : mean(f),
    humanMean: n === 0 ? null : mean(y),
    bias,
    biasInterval,
    meanAbsoluteError: n === 0 ? null : mean(d.map(Math.abs)),
    spearman: rho,
    spearmanInterval,
    binary,
    kappa: kappa.kappa,
    kappaInterval: kappa.interval,
    truePositiveRate,
    trueNegativeRate,
    reviewers: krippendorffAlpha(
      sessions.map((s) => s.labels),
      binary ? 'nominal' : 'interval',
    ),
    verdict: verdictOf(n, binary ? kappa.interval : spearmanInterval),
  };
}

/** Labelled sessions PPI++ needs at least, and unlabelled ones. */
export const PPI_MIN_LABELED = 10;
export const PPI_MIN_UNLABELED = 2;

export interface PpiEstimate {
  score: number;
  interval: Interval;
  labeled: number;
  unlabeled: number;
  lambda: number;
  effectiveLabels: number | null;
}

/**
 * The mean of human scores estimated from a few labels and many judge scores: prediction-powered
 * inference with power tuning (Angelopoulos et al. 2023, "PPI++: Efficient Prediction-Powered
 * Inference", the mean estimator; cf. ppi_py's `ppi_mean_pointestimate` and `_calc_lhat_glm`).
 * L: n sessions with judge score f and human score y; U: N sessions with f only.
 * λ = clip(Cov_L(y, f) / ((1 + n/N)·Var_{L∪U}(f)), 0, 1) (0 when Var_{L∪U}(f) = 0);
 * score = λ·mean_U(f) + mean_L(y − λf); V = λ²·Var_U(f)/N + Var_L(y − λf)/n;
 * interval = score ± Z·√V clamped to [0, 1]; effectiveLabels = Var_L(y)/V (null when V = 0).
 * Sample (co)variances with n − 1. Null when n < 10 or N < 2.
 */
export function ppiMean(labeled: readonly { judge: number; human: number }[], unlabeled: readonly number[]) {
  const n = labeled.length;
  const N = unlabeled.length;
  if (n < PPI_MIN_LABELED || N < PPI_MIN_UNLABELED) return null;
  const fL = labeled.map((p) => p.judge);
  const yL = labeled.map((p) => p.human);
  const all = [...fL, ...unlabeled];
  const varAll = sampleVariance(all);
  const lambda = varAll === 0 ? 0 : clamp(sampleCovariance(yL, fL) / ((1 + n / N) * varAll), 0, 1);
  const residual = yL.map((y, i) => y - lambda * fL[i]!);
  const score = lambda * mean([...unlabeled]) + mean(residual);
  const variance = (lambda * lambda * sampleVariance([...unlabeled])) / N + sampleVariance(residual) / n;
  const half = Z * Math.sqrt(variance);
  return {
    score,
    interval: { lower: clamp(score - half, 0, 1), upper: clamp(score + half, 0, 1) },
    labeled: n,
    unlabeled: N,
    lambda,
    effectiveLabels: variance === 0 ? null : sampleVariance(yL) / variance,
  } satisfies PpiEstimate;
}

/**
 * A uniform random sample of `size` items without replacement (a partial Fisher–Yates shuffle),
 * drawn from a generator seeded by `seed`: the same seed over the same items in the same order
 * (callers sort them by id) draws the same sample, in every release. The generator is
 * cyrb128 (the seed's hash) feeding sfc32, a dozen lines: no runtime package holds a seedable
 * generator whose sequence is promised not to change, and a change would break every seed given.
 */
export function seededSample<T>(items: readonly T[], size: number, seed: string): T[] {
  const random = sfc32(...cyrb128(seed));
  const pool = [...items];
  const k = Math.min(size, pool.length);
  for (let i = 0; i < k; i++) {
    const j = i + Math.floor(random() * (pool.length - i));
    [pool[i], pool[j]] = [pool[j]!, pool[i]!];
  }
  return pool.slice(0, k);
}

/** cyrb128: a 128-bit hash of a string, as four 32-bit words. */
function cyrb128(text: string): [number, number, number, number] {
  let h1 = 1779033703;
  let h2 = 3144134277;
  let h3 = 1013904242;
  let h4 = 2773480762;
  for (let i = 0; i < text.length; i++) {
    const k = text.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  h1 ^= h2 ^ h3 ^ h4;
  h2 ^= h1;
  h3 ^= h1;
  h4 ^= h1;
  return [h1 >>> 0, h2 >>> 0, h3 >>> 0, h4 >>> 0];
}

/** sfc32 (Chris Doty-Humphrey's Small Fast Counting generator): uniform numbers in [0, 1). */
function sfc32(a: number, b: number, c: number, d: number): () => number {
  return () => {
    a |= 0;
    b |= 0;
    c |= 0;
    d |= 0;
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
}
