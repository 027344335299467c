/**
 * Weighted score statistics of a monitor. A bucket keeps additive sums
 * of its scores x (0–1) with weights w, so buckets and the headline merge by adding sums.
 */
export interface Sums {
  n: number;
  sw: number;
  swx: number;
  sw2: number;
  sw2x: number;
  sw2x2: number;
}

export interface ScorePoint {
  scoredSessions: number;
  score: number | null;
  confidenceInterval: { lower: number; upper: number } | null;
  collectingData: boolean;
}

export const MIN_SESSIONS_FOR_INTERVAL = 30;
const Z95 = 1.96;

export function emptySums(): Sums {
  return { n: 0, sw: 0, swx: 0, sw2: 0, sw2x: 0, sw2x2: 0 };
}

export function addScore(s: Sums, x: number, w: number): Sums {
  return {
    n: s.n + 1,
    sw: s.sw + w,
    swx: s.swx + w * x,
    sw2: s.sw2 + w * w,
    sw2x: s.sw2x + w * w * x,
    sw2x2: s.sw2x2 + w * w * x * x,
  };
}

export function mergeSums(...all: Sums[]): Sums {
  return all.reduce(
    (a, b) => ({
      n: a.n + b.n,
      sw: a.sw + b.sw,
      swx: a.swx + b.swx,
      sw2: a.sw2 + b.sw2,
      sw2x: a.sw2x + b.sw2x,
      sw2x2: a.sw2x2 + b.sw2x2,
    }),
    emptySums(),
  );
}

const clamp = (v: number) => Math.min(1, Math.max(0, v));

/**
 * score = Σwx / Σw (null when n = 0). At n ≥ 30 the 95% interval is score ± 1.96·√V, clamped to
 * [0, 1], with V = (Σw²x² − 2·score·Σw²x + score²·Σw²) / (Σw)² · n / (n − 1).
 */
export function scorePoint(s: Sums): ScorePoint {
  if (s.n === 0 || s.sw <= 0)
    return { scoredSessions: s.n, score: null, confidenceInterval: null, collectingData: true };
  const score = s.swx / s.sw;
  if (s.n < MIN_SESSIONS_FOR_INTERVAL)
    return { scoredSessions: s.n, score, confidenceInterval: null, collectingData: true };
  const raw = ((s.sw2x2 - 2 * score * s.sw2x + score * score * s.sw2) / (s.sw * s.sw)) * (s.n / (s.n - 1));
  // Sums lose ~1e-16 to cancellation: below that, the variance is zero (all scores equal).
  const half = Z95 * Math.sqrt(raw > 1e-15 ? raw : 0);
  return {
    scoredSessions: s.n,
    score,
    confidenceInterval: { lower: clamp(score - half), upper: clamp(score + half) },
    collectingData: false,
  };
}
