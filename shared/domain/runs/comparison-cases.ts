/** GET /runs/{id}/comparison/cases: the paired cases of two finished runs, one row per (case, metric). */
import type { AuthContext } from '../../auth/context.js';
import { storedTestCases } from '../../db/test-case-reads.js';
import type { ComparisonCase, ComparisonCasesQuery } from '../../schemas/runs.js';
import { DEFAULT_LIMIT } from '../../schemas/common.js';
import type { Page } from '../common/list.js';
import { caseInputText, comparedMetrics, firstCharacters, loadPair } from './pairing.js';

type Row = Omit<ComparisonCase, 'input'>;

const cmp = (x: string, y: string): number => (x < y ? -1 : x > y ? 1 : 0);
const byMetric = (a: Row, b: Row): number => cmp(a.metricName, b.metricName) || cmp(a.metricId, b.metricId);

/** Each sort, its ties broken by test case id ascending, then by metric: pages never overlap. */
const SORTS: Record<NonNullable<ComparisonCasesQuery['sort']>, (a: Row, b: Row) => number> = {
  'difference:asc': (a, b) => a.difference - b.difference || cmp(a.testCaseId, b.testCaseId) || byMetric(a, b),
  'difference:desc': (a, b) => b.difference - a.difference || cmp(a.testCaseId, b.testCaseId) || byMetric(a, b),
  'testCaseId:asc': (a, b) => cmp(a.testCaseId, b.testCaseId) || byMetric(a, b),
  'testCaseId:desc': (a, b) => cmp(b.testCaseId, a.testCaseId) || byMetric(a, b),
};

const CHANGED: Record<NonNullable<ComparisonCasesQuery['changed']>, (difference: number) => boolean> = {
  regressed: (d) => d < 0,
  improved: (d) => d > 0,
  unchanged: (d) => d === 0,
  any: () => true,
};

/**
 * GET /runs/{id}/comparison/cases?baseRunId=: one row per (paired case, metric), filtered, sorted
 * and paged; only the page's test cases are read for their input.
 */
export async function comparisonCasesFor(
  auth: AuthContext,
  runId: string,
  query: ComparisonCasesQuery,
): Promise<Page<ComparisonCase>> {
  const { run, base, runCases, baseCases } = await loadPair(auth, runId, query.baseRunId);
  const wanted = query.metricIds ? new Set(query.metricIds) : undefined;
  const keep = CHANGED[query.changed ?? 'any'];
  const rows: Row[] = [];
  for (const metric of comparedMetrics(run, base, runCases, baseCases)) {
    if (wanted && !wanted.has(metric.metricId)) continue;
    for (const p of metric.pairs) {
      const difference = p.run - p.base;
      if (!keep(difference)) continue;
      rows.push({
        testCaseId: p.testCaseId,
        metricId: metric.metricId,
        metricName: metric.name,
        baseScore: p.base,
        score: p.run,
        difference,
        baseSessionIds: baseCases.get(p.testCaseId)!.sessionIds,
        sessionIds: runCases.get(p.testCaseId)!.sessionIds,
      });
    }
  }
  rows.sort(SORTS[query.sort ?? 'difference:asc']);
  const offset = query.offset ?? 0;
  const pageRows = rows.slice(offset, offset + (query.limit ?? DEFAULT_LIMIT));
  const cases = await storedTestCases(auth.organizationId, [...new Set(pageRows.map((r) => r.testCaseId))]);
  return {
    items: pageRows.map((r) => {
      const testCase = cases.get(r.testCaseId);
      return {
        testCaseId: r.testCaseId,
        metricId: r.metricId,
        metricName: r.metricName,
        input: testCase?.input ? firstCharacters(caseInputText(testCase.input), 200) : null,
        baseScore: r.baseScore,
        score: r.score,
        difference: r.difference,
        baseSessionIds: r.baseSessionIds,
        sessionIds: r.sessionIds,
      };
    }),
    total: rows.length,
  };
}
