/**
 * GET /runs/{id}/comparison: a run against a base run of the same organization, paired by test
 * case (./pairing.ts), with one paired t-test per metric scored in both. The caller gives Student's
 * t (./student-t.ts): the comparison route imports it, the JUnit route loads it only for a report
 * with a comparison.
 */
import type { AuthContext } from '../../auth/context.js';
import type { StoredRun } from '../../db/runs.js';
import type { MetricComparison, RunComparison } from '../../schemas/runs.js';
import { compareMetricScores, type StudentT } from './comparison-stats.js';
import { comparedMetrics, loadPair, type ComparedMetric } from './pairing.js';

/** GET /runs/{id}/comparison?baseRunId=: one paired t-test per metric scored in both runs, Holm-adjusted. */
export async function compareRunsFor(
  auth: AuthContext,
  runId: string,
  baseRunId: string,
  t: StudentT,
): Promise<RunComparison> {
  const { run, base, runCases, baseCases } = await loadPair(auth, runId, baseRunId);
  return comparisonOf(run, base, comparedMetrics(run, base, runCases, baseCases), t);
}

function comparisonOf(run: StoredRun, base: StoredRun, metrics: ComparedMetric[], t: StudentT): RunComparison {
  const compared = compareMetricScores(metrics, t);
  return {
    runId: run.id,
    baseRunId: base.id,
    pairedBy: 'testCaseId',
    verdict: compared.verdict,
    metrics: compared.metrics.map(
      (m): MetricComparison => ({
        metricId: m.metricId,
        name: m.name,
        n: m.n,
        onlyInBase: m.onlyInBase,
        onlyInRun: m.onlyInRun,
        baseScore: m.baseScore,
        score: m.score,
        difference: m.difference,
        standardError: m.standardError,
        confidenceInterval: m.confidenceInterval,
        pValue: m.pValue,
        adjustedPValue: m.adjustedPValue,
        verdict: m.verdict,
        minimumDetectableEffect: m.minimumDetectableEffect,
      }),
    ),
  };
}

/** The comparison and the runs' results by case, for a report that shows both (JUnit). */
export async function comparisonWithCases(auth: AuthContext, runId: string, baseRunId: string, t: StudentT) {
  const pair = await loadPair(auth, runId, baseRunId);
  const comparison = comparisonOf(
    pair.run,
    pair.base,
    comparedMetrics(pair.run, pair.base, pair.runCases, pair.baseCases),
    t,
  );
  return { ...pair, comparison };
}
