/**
 * The statistics of `npm run bench:cold` (bench/cold.ts): medians, the bootstrap interval of a ratio
 * of medians, and the verdict it gives on a goal.
 */
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

const RESAMPLES = 2000;

/**
 * The 90 % percentile-bootstrap interval of median(own) / median(ref). Rounds are resampled whole
 * (a round's two times together), since both ran side by side and share that moment's load.
 */
export function ratioInterval(own: readonly number[], ref: readonly number[]): [number, number] {
  // Seeded: the same times always print the same interval.
  const rng = xoroshiro128plus(own.length * 7919 + ref.length);
  const n = Math.min(own.length, ref.length);
  const ratios: number[] = [];
  for (let r = 0; r < RESAMPLES; r++) {
    const a: number[] = [];
    const b: number[] = [];
    for (let i = 0; i < n; i++) {
      const k = uniformInt(rng, 0, n - 1);
      a.push(own[k]!);
      b.push(ref[k]!);
    }
    ratios.push(median(a) / median(b));
  }
  ratios.sort((x, y) => x - y);
  return [ratios[Math.floor(RESAMPLES * 0.05)]!, ratios[Math.ceil(RESAMPLES * 0.95) - 1]!];
}

/** Over the goal (its whole interval above it), within it (its whole interval at or under it), or too close to call. */
export type Verdict = 'over' | 'within' | 'close';
export const verdictOf = ([low, high]: readonly [number, number], goal: number): Verdict =>
  low > goal ? 'over' : high <= goal ? 'within' : 'close';

/** One function's ratio to its own floor (the median of its rounds) and that ratio's 90 % interval. */
export interface RatioRow {
  ratio: number;
  interval: readonly [number, number];
}

/** Within the goal beyond doubt: its median at or under it and its whole interval too. */
export const settledWithin = (r: RatioRow, goal: number): boolean =>
  r.ratio <= goal && verdictOf(r.interval, goal) === 'within';

/**
 * The cold-start goals on one measure: every function's median ratio at or under `maxRatio`, none
 * over it by its interval (one too close to call is not over), and the median function's ratio to
 * the DynamoDB-only floor at or under `maxMedian`; `medianRatio` undefined when not every function
 * was timed, so only the per-function goal can be judged.
 */
export function goalsMet(
  rows: readonly RatioRow[],
  medianRatio: number | undefined,
  { maxRatio, maxMedian }: { maxRatio: number; maxMedian: number },
): boolean {
  return (
    rows.length > 0 &&
    rows.every((r) => r.ratio <= maxRatio && verdictOf(r.interval, maxRatio) !== 'over') &&
    (medianRatio === undefined || medianRatio <= maxMedian)
  );
}
