/**
 * The statistics of a run comparison, pure: a paired t-test per metric over the test
 * cases both runs scored, Holm's step-down adjustment across the metrics of one comparison, and
 * the verdicts. Pairing by test case removes the between-case variance (some cases are simply
 * harder), so a small real change shows up with far fewer cases than comparing two means would.
 */

export const VERDICTS = ['improved', 'regressed', 'no_significant_change', 'not_enough_data'] as const;
export type Verdict = (typeof VERDICTS)[number];

/** The family-wise significance level the adjusted p-values are compared with. */
export const SIGNIFICANCE = 0.05;
/** The power the minimum detectable effect is stated at (t quantile 0.80). */
const POWER = 0.8;

/** One test case's score in the base run and in the compared run. */
export interface ScorePair {
  base: number;
  run: number;
}

export interface PairedComparison {
  /** Cases with a score in both runs. */
  n: number;
  /** Mean base score over the paired cases (null with none). */
  baseScore: number | null;
  /** Mean score over the paired cases (null with none). */
  score: number | null;
  /** d̄, the mean of the paired differences run − base (null with none). */
  difference: number | null;
  /** s_d / √n (null when n < 2). */
  standardError: number | null;
  /** d̄ ± t₀.₉₇₅·SE, t with n − 1 degrees of freedom (null when n < 2). */
  confidenceInterval: [number, number] | null;
  /** Two-sided paired t-test of d̄ = 0 (null when n < 2). */
  pValue: number | null;
  /** (t₀.₉₇₅ + t₀.₈₀)·SE: the smallest true difference this many cases detect 80% of the time (null when n < 2). */
  minimumDetectableEffect: number | null;
}

const mean = (xs: readonly number[]): number => xs.reduce((s, x) => s + x, 0) / xs.length;

/**
 * The sample standard deviation (n − 1 in the denominator), two-pass with the rounding
 * correction; exactly 0 when every value is the same, so "no spread" is recognised as such
 * instead of as a spread of 1e-17 (which would turn into a huge t and a p of 0 by accident).
 */
function sampleStandardDeviation(xs: readonly number[], m: number): number {
  if (xs.every((x) => x === xs[0])) return 0;
  let ss = 0;
  let sum = 0;
  for (const x of xs) {
    ss += (x - m) ** 2;
    sum += x - m;
  }
  return Math.sqrt(Math.max(0, ss - (sum * sum) / xs.length) / (xs.length - 1));
}

/**
 * Student's t distribution, given by the caller (./student-t.ts): a route that reports a
 * comparison only now and then loads the statistics package when it does.
 */
export interface StudentT {
  /** The p quantile with `df` degrees of freedom. */
  quantile(p: number, df: number): number;
  /** P(T ≤ x) with `df` degrees of freedom. */
  cdf(x: number, df: number): number;
}

/** The paired comparison of one metric's scores (every figure but the adjusted p and the verdict). */
export function pairedComparison(pairs: readonly ScorePair[], t: StudentT): PairedComparison {
  const n = pairs.length;
  if (n === 0)
    return {
      n,
      baseScore: null,
      score: null,
      difference: null,
      standardError: null,
      confidenceInterval: null,
      pValue: null,
      minimumDetectableEffect: null,
    };
  const diffs = pairs.map((p) => p.run - p.base);
  const baseScore = mean(pairs.map((p) => p.base));
  const score = mean(pairs.map((p) => p.run));
  // All differences equal: their mean is that value (a sum and a division could be 1 ulp off).
  const difference = diffs.every((d) => d === diffs[0]) ? diffs[0]! : mean(diffs);
  if (n < 2)
    return {
      n,
      baseScore,
      score,
      difference,
      standardError: null,
      confidenceInterval: null,
      pValue: null,
      minimumDetectableEffect: null,
    };
  const df = n - 1;
  const standardError = sampleStandardDeviation(diffs, difference) / Math.sqrt(n);
  const t975 = t.quantile(0.975, df);
  const half = t975 * standardError;
  return {
    n,
    baseScore,
    score,
    difference,
    standardError,
    confidenceInterval: [difference - half, difference + half],
    pValue: pairedPValue(difference, standardError, df, t),
    minimumDetectableEffect: (t975 + t.quantile(POWER, df)) * standardError,
  };
}

/**
 * The two-sided p of the paired t statistic d̄/SE. With no spread the test is degenerate: every
 * case moved by exactly d̄, so the answer is certain (1 when nothing moved, else 0). The lower
 * tail is used (2·F(−|t|)) because 1 − F(|t|) loses every digit once F(|t|) rounds to 1.
 */
function pairedPValue(difference: number, standardError: number, df: number, t: StudentT): number {
  if (standardError === 0) return difference === 0 ? 1 : 0;
  const statistic = difference / standardError;
  return Math.min(1, 2 * t.cdf(-Math.abs(statistic), df));
}

/**
 * Holm's step-down adjustment of the p-values that are not null: with p(1) ≤ … ≤ p(m),
 * adj(i) = max over j ≤ i of min(1, (m − j + 1)·p(j)). Nulls stay null and do not count in m.
 * Equal p-values keep their input order (their adjusted values come out equal either way).
 */
export function holmAdjust(pValues: readonly (number | null)[]): (number | null)[] {
  const present = pValues
    .map((p, index) => ({ p, index }))
    .filter((x): x is { p: number; index: number } => x.p !== null)
    .sort((a, b) => a.p - b.p || a.index - b.index);
  const m = present.length;
  const out: (number | null)[] = pValues.map(() => null);
  let running = 0;
  present.forEach(({ p, index }, j) => {
    running = Math.max(running, Math.min(1, (m - j) * p));
    out[index] = running;
  });
  return out;
}

/** A metric's verdict from its paired comparison and its Holm-adjusted p. */
export function metricVerdict(c: { n: number; difference: number | null; adjustedPValue: number | null }): Verdict {
  if (c.n < 2 || c.adjustedPValue === null || c.difference === null) return 'not_enough_data';
  if (c.adjustedPValue < SIGNIFICANCE && c.difference > 0) return 'improved';
  if (c.adjustedPValue < SIGNIFICANCE && c.difference < 0) return 'regressed';
  return 'no_significant_change';
}

/**
 * The comparison's verdict: regressed when any metric regressed (a regression is never hidden by
 * an improvement elsewhere), else improved when any improved, else not_enough_data when no metric
 * had two paired cases (also when no metric was scored in both runs), else no_significant_change.
 */
export function overallVerdict(metrics: readonly { n: number; verdict: Verdict }[]): Verdict {
  if (metrics.some((m) => m.verdict === 'regressed')) return 'regressed';
  if (metrics.some((m) => m.verdict === 'improved')) return 'improved';
  if (metrics.every((m) => m.n < 2)) return 'not_enough_data';
  return 'no_significant_change';
}

/** One metric's inputs to a comparison: its pairs and the cases only one run scored. */
export interface MetricScores {
  metricId: string;
  name: string;
  pairs: readonly ScorePair[];
  onlyInBase: number;
  onlyInRun: number;
}

export interface MetricComparison extends PairedComparison {
  metricId: string;
  name: string;
  onlyInBase: number;
  onlyInRun: number;
  adjustedPValue: number | null;
  verdict: Verdict;
}

/**
 * Every metric compared, ordered by name then id, with Holm's adjustment over this comparison's
 * metrics, and the comparison's verdict.
 */
export function compareMetricScores(
  metrics: readonly MetricScores[],
  t: StudentT,
): {
  verdict: Verdict;
  metrics: MetricComparison[];
} {
  const ordered = [...metrics].sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : a.metricId < b.metricId ? -1 : a.metricId > b.metricId ? 1 : 0,
  );
  const paired = ordered.map((m) => pairedComparison(m.pairs, t));
  const adjusted = holmAdjust(paired.map((p) => p.pValue));
  const out = ordered.map((m, i): MetricComparison => {
    const p = paired[i]!;
    const adjustedPValue = adjusted[i]!;
    return {
      metricId: m.metricId,
      name: m.name,
      ...p,
      onlyInBase: m.onlyInBase,
      onlyInRun: m.onlyInRun,
      adjustedPValue,
      verdict: metricVerdict({ n: p.n, difference: p.difference, adjustedPValue }),
    };
  });
  return { verdict: overallVerdict(out), metrics: out };
}
