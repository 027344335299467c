/**
 * GET /runs/{id}/comparison and /comparison/cases: a run against a base run of the
 * same organization, paired by test case. Both runs must be finished: a comparison of a run still
 * scoring would change under its reader, and CI would gate on half a run.
 */
import type { AuthContext } from '../../auth/context.js';
import { runResults } from '../../db/run-results.js';
import { getStoredRun, type StoredRun } from '../../db/runs.js';
import { storedTestCases } from '../../db/test-case-reads.js';
import { ConflictError, ForbiddenError, NotFoundError } from '../../errors.js';
import type { ComparisonCase, ComparisonCasesQuery, MetricComparison, RunComparison } from '../../schemas/runs.js';
import type { TestCase } from '../../schemas/tests.js';
import { DEFAULT_LIMIT } from '../../schemas/common.js';
import type { Page } from '../common/list.js';
import { caseResults, caseScore, type CaseResult } from './case-results.js';
import { compareMetricScores } from './comparison-stats.js';

/** The statuses a run may not be compared in: its sessions are still being run or scored. */
const UNFINISHED = new Set(['PENDING', 'RUNNING']);

/**
 * A finished run of the caller's organization: 403 another organization's, 404 none, 409 still
 * PENDING or RUNNING (`purpose` says what needs it finished). Errors about the base run name its
 * query parameter.
 */
export async function finishedRun(
  auth: AuthContext,
  id: string,
  field?: 'baseRunId',
  purpose = 'can be compared',
): Promise<StoredRun> {
  const prefix = field ? `${field}: ` : '';
  let run: StoredRun;
  try {
    run = await getStoredRun(auth.organizationId, id);
  } catch (error) {
    if (field && error instanceof ForbiddenError) throw new ForbiddenError(`${prefix}${error.message}`);
    if (field && error instanceof NotFoundError) throw new NotFoundError(`${prefix}${error.message}`);
    throw error;
  }
  if (UNFINISHED.has(run.status))
    throw new ConflictError(
      `${prefix}run ${id} is ${run.status}; only finished runs (COMPLETED, FAILED or CANCELLED) ${purpose}`,
    );
  return run;
}

/** Both runs, checked (the compared run first, so its own 403/404/409 wins), and their results by case. */
export async function loadPair(auth: AuthContext, runId: string, baseRunId: string) {
  const run = await finishedRun(auth, runId);
  const base = await finishedRun(auth, baseRunId, 'baseRunId');
  const [runSessions, baseSessions] = await Promise.all([runResults(run.id), runResults(base.id)]);
  return { run, base, runCases: caseResults(runSessions), baseCases: caseResults(baseSessions) };
}

interface Pair {
  testCaseId: string;
  base: number;
  run: number;
}

interface ComparedMetric {
  metricId: string;
  name: string;
  pairs: Pair[];
  onlyInBase: number;
  onlyInRun: number;
}

/** Each metric a case scored, with its name (the run's name for it, else what its evaluations recorded). */
function scoredMetrics(cases: Map<string, CaseResult>, named: Record<string, string>): Map<string, string> {
  const out = new Map<string, string>();
  for (const c of cases.values())
    for (const [metricId, m] of c.metrics)
      if (m.scored.length > 0 && !out.has(metricId)) out.set(metricId, named[metricId] ?? m.name);
  return out;
}

/** The metrics scored in both runs, each with its pairs (by test case id) and the cases only one run scored. */
function comparedMetrics(
  run: StoredRun,
  base: StoredRun,
  runCases: Map<string, CaseResult>,
  baseCases: Map<string, CaseResult>,
): ComparedMetric[] {
  const inRun = scoredMetrics(runCases, run._metricNames ?? {});
  const inBase = scoredMetrics(baseCases, base._metricNames ?? {});
  const caseIds = [...new Set([...runCases.keys(), ...baseCases.keys()])].sort();
  const out: ComparedMetric[] = [];
  for (const [metricId, name] of inRun) {
    if (!inBase.has(metricId)) continue;
    const metric: ComparedMetric = { metricId, name, pairs: [], onlyInBase: 0, onlyInRun: 0 };
    for (const testCaseId of caseIds) {
      const r = caseScore(runCases.get(testCaseId)?.metrics.get(metricId));
      const b = caseScore(baseCases.get(testCaseId)?.metrics.get(metricId));
      if (r !== undefined && b !== undefined) metric.pairs.push({ testCaseId, base: b, run: r });
      else if (b !== undefined) metric.onlyInBase++;
      else if (r !== undefined) metric.onlyInRun++;
    }
    out.push(metric);
  }
  return out;
}

/** GET /runs/{id}/comparison?baseRunId=: one paired t-test per metric scored in both runs, Holm-adjusted. */
export async function compareRunsFor(auth: AuthContext, runId: string, baseRunId: string): Promise<RunComparison> {
  const { run, base, runCases, baseCases } = await loadPair(auth, runId, baseRunId);
  return comparisonOf(run, base, comparedMetrics(run, base, runCases, baseCases));
}

function comparisonOf(run: StoredRun, base: StoredRun, metrics: ComparedMetric[]): RunComparison {
  const compared = compareMetricScores(metrics);
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
export async function comparisonWithCases(auth: AuthContext, runId: string, baseRunId: string) {
  const pair = await loadPair(auth, runId, baseRunId);
  const comparison = comparisonOf(
    pair.run,
    pair.base,
    comparedMetrics(pair.run, pair.base, pair.runCases, pair.baseCases),
  );
  return { ...pair, comparison };
}

/** What a test case's input reads as in a report: its text, the user message of an object, else its JSON. */
export function caseInputText(input: TestCase['input'] | undefined): string {
  if (input === null || input === undefined) return '';
  if (typeof input === 'string') return input;
  const message = (input as Record<string, unknown>).user_message;
  return typeof message === 'string' ? message : JSON.stringify(input);
}

/** The first `n` characters (code points, so a cut never splits a surrogate pair). */
export function firstCharacters(text: string, n: number): string {
  const chars = Array.from(text);
  return chars.length <= n ? text : chars.slice(0, n).join('');
}

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
