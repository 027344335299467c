/**
 * GET /runs/{id}/junit: a finished run as JUnit XML for a CI server: a test suite
 * per metric of the run, a test case per case that metric scored (failing below the run's
 * threshold, in error when its evaluations only failed), and with `baseRunId` a "comparison"
 * suite whose test per metric fails when it regressed.
 */
import type { AuthContext } from '../../auth/context.js';
import { runResults } from '../../db/run-results.js';
import type { StoredRun } from '../../db/runs.js';
import { storedTestCases, storedTests } from '../../db/test-case-reads.js';
import { DEFAULT_THRESHOLD, type MetricComparison } from '../../schemas/runs.js';
import type { TestCase } from '../../schemas/tests.js';
import { caseResults, caseScore, type CaseMetric, type CaseResult } from './case-results.js';
import { comparisonWithCases } from './comparison.js';
import { caseInputText, finishedRun, firstCharacters } from './pairing.js';
import { junitXml, type JunitCase, type JunitSuite } from './junit-xml.js';

/** Figures in messages: four significant digits are plenty to read, and keep the line short. */
const fmt = (x: number | null): string => (x === null ? 'n/a' : String(Number(x.toPrecision(4))));
/** A reason in a one-line message attribute; the whole text is in the element's body. */
const short = (text: string): string => firstCharacters(text.replace(/\s+/g, ' ').trim(), 300);

/** What names a case: its input (first 100 characters); a SCENARIOS case has none, its goal then. */
function caseName(testCase: TestCase | undefined, testCaseId: string): string {
  const text = testCase ? caseInputText(testCase.input) || testCase.goal || testCase.scenario || '' : '';
  return text ? firstCharacters(text, 100) : testCaseId;
}

function caseOutcome(c: CaseResult, metric: CaseMetric, threshold: number): Pick<JunitCase, 'failure' | 'error'> {
  const score = caseScore(metric);
  if (score === undefined) {
    const first = metric.failed[0]!;
    return {
      error: {
        message: `no SUCCESS evaluation: ${short(first.error ?? 'the evaluation failed')}`,
        text: [
          `test case ${c.testCaseId}`,
          ...metric.failed.map(
            (f) => `repetition ${f.repetition}, session ${f.sessionId}: FAILED: ${f.error ?? 'no error recorded'}`,
          ),
        ].join('\n'),
      },
    };
  }
  if (score >= threshold) return {};
  const worst = metric.scored.reduce((a, b) => (b.score < a.score ? b : a));
  return {
    failure: {
      message: `score ${fmt(score)} is below the threshold ${fmt(threshold)}: ${short(worst.reason ?? 'no reason given')}`,
      text: [
        `test case ${c.testCaseId}: mean score ${score} over ${metric.scored.length} evaluation${metric.scored.length === 1 ? '' : 's'}`,
        ...metric.scored.map(
          (o) => `repetition ${o.repetition}, session ${o.sessionId}: ${o.score}: ${o.reason ?? 'no reason given'}`,
        ),
      ].join('\n'),
    },
  };
}

function comparisonCase(m: MetricComparison, baseRunId: string): JunitCase {
  const out: JunitCase = { classname: 'comparison', name: m.name };
  if (m.verdict !== 'regressed') return out;
  const ci = m.confidenceInterval;
  return {
    ...out,
    failure: {
      message: `difference ${fmt(m.difference)} (95% CI [${fmt(ci?.[0] ?? null)}, ${fmt(ci?.[1] ?? null)}]), adjusted p ${fmt(m.adjustedPValue)}`,
      text: [
        `metric ${m.metricId} regressed against run ${baseRunId}`,
        `${m.n} paired test cases: base score ${m.baseScore}, score ${m.score}, difference ${m.difference}`,
        `95% confidence interval [${ci?.[0]}, ${ci?.[1]}], p ${m.pValue}, Holm-adjusted p ${m.adjustedPValue}`,
        `minimum detectable effect ${m.minimumDetectableEffect}`,
      ].join('\n'),
    },
  };
}

/** The run's cases in the order it ran them: by test (the run's order), then file order. */
function ordered(run: StoredRun, cases: Map<string, CaseResult>, testCases: Map<string, TestCase>): CaseResult[] {
  const testRank = new Map(run.testIds.map((id, i) => [id, i]));
  const rank = (c: CaseResult) => testRank.get(c.testId ?? '') ?? run.testIds.length;
  const index = (c: CaseResult) => testCases.get(c.testCaseId)?.index ?? Number.MAX_SAFE_INTEGER;
  return [...cases.values()].sort(
    (a, b) =>
      rank(a) - rank(b) ||
      index(a) - index(b) ||
      (a.testCaseId < b.testCaseId ? -1 : a.testCaseId > b.testCaseId ? 1 : 0),
  );
}

export async function runJunitFor(auth: AuthContext, runId: string, baseRunId?: string): Promise<string> {
  let run: StoredRun;
  let cases: Map<string, CaseResult>;
  let comparison: { metrics: MetricComparison[]; baseRunId: string } | undefined;
  if (baseRunId) {
    // The statistics package loads only for a report with a comparison: a plain report never needs
    // it. The imported module is a leaf (the package alone), so the bundler defers nothing else.
    const { studentT } = await import('./student-t.js');
    const pair = await comparisonWithCases(auth, runId, baseRunId, studentT);
    run = pair.run;
    cases = pair.runCases;
    comparison = pair.comparison;
  } else {
    run = await finishedRun(auth, runId, undefined, 'have a JUnit report');
    cases = caseResults(await runResults(run.id));
  }
  const org = auth.organizationId;
  const testIds = [...new Set([...cases.values()].map((c) => c.testId).filter((id): id is string => Boolean(id)))];
  const [testCases, tests] = await Promise.all([storedTestCases(org, [...cases.keys()]), storedTests(org, testIds)]);
  const threshold = run.threshold ?? DEFAULT_THRESHOLD;
  const inOrder = ordered(run, cases, testCases);
  const suites: JunitSuite[] = run.metricIds.map((metricId) => ({
    name: run._metricNames?.[metricId] ?? metricId,
    cases: inOrder.flatMap((c): JunitCase[] => {
      const metric = c.metrics.get(metricId);
      if (!metric || (metric.scored.length === 0 && metric.failed.length === 0)) return [];
      return [
        {
          classname: (c.testId && tests.get(c.testId)?.name) || c.testId || 'test',
          name: caseName(testCases.get(c.testCaseId), c.testCaseId),
          ...caseOutcome(c, metric, threshold),
        },
      ];
    }),
  }));
  if (comparison) {
    const base = comparison.baseRunId;
    suites.push({ name: 'comparison', cases: comparison.metrics.map((m) => comparisonCase(m, base)) });
  }
  return junitXml(run.name, suites);
}
