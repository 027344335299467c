/**
 * The arithmetic of `npm run bench:runs` (bench/runs.ts): how a workload of cases is split into
 * runs, and the ratios it prints. Pure, unit-tested (test/unit/bench-runs-plan.test.ts).
 */

/**
 * The cases of each run of a workload of `cases`: as few runs as the cap allows (a run executes at
 * most `maxPerRun` sessions), or `runs` when given, the cases spread as evenly as they go.
 * 10,000 cases under a cap of 5,000 are two runs of 5,000.
 */
export function planRuns(cases: number, maxPerRun: number, runs?: number): number[] {
  if (!Number.isInteger(cases) || cases < 1) throw new Error(`cases must be a whole number from 1: ${cases}`);
  const count = runs ?? Math.ceil(cases / maxPerRun);
  if (!Number.isInteger(count) || count < 1 || count > cases) {
    throw new Error(`runs must be a whole number from 1 to the cases (${cases}): ${count}`);
  }
  const sizes = Array.from({ length: count }, (_, i) => Math.floor(cases / count) + (i < cases % count ? 1 : 0));
  if (sizes[0]! > maxPerRun) {
    throw new Error(
      `${count} run${count === 1 ? '' : 's'} of ${cases} cases would hold ${sizes[0]} in one: a run executes at most ${maxPerRun} sessions`,
    );
  }
  return sizes;
}

/** The wall time per case of a workload against that of a reference workload (1.0: it scales linearly). */
export function wallPerCaseRatio(
  workload: { ms: number; cases: number },
  reference: { ms: number; cases: number },
): number {
  return workload.ms / workload.cases / (reference.ms / reference.cases);
}
