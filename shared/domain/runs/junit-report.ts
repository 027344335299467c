/**
 * What a finished run's JUnit document says, pure (./junit.ts reads the records): a report that
 * never looks green by accident.
 * - `run`: only when the run FAILED (or was CANCELLED), one `<testcase name="run">` in error
 *   saying why;
 * - `sessions`: every session of the run is a test case, in error when it FAILED (its error) or
 *   did not finish, so a run whose sessions all failed has as many errors as sessions;
 * - a suite per metric of the run: a case per test case the metric scored, failing below the run's
 *   threshold, in error when its evaluations only failed;
 * - with a comparison, a `comparison` suite whose test per metric fails when it regressed.
 */
import type { StoredRun } from '../../db/runs.js';
import { DEFAULT_THRESHOLD, type MetricComparison } from '../../schemas/runs.js';
import { caseScore, type CaseMetric, type CaseResult } from './case-results.js';
import { junitXml, type JunitCase, type JunitSuite } from './junit-xml.js';
import { caseInputText, firstCharacters } from './pairing.js';
import type { Session } from '../../schemas/sessions.js';
import type { TestCase } from '../../schemas/tests.js';

/** What the report reads of the run. */
export type JunitRun = Pick<
  StoredRun,
  'id' | 'name' | 'status' | 'error' | 'metricIds' | 'testIds' | 'threshold' | 'repetitions' | '_metricNames'
>;

/** What the report reads of each of its sessions. */
export type JunitSession = Pick<
  Session,
  'id' | 'testId' | 'testCaseId' | 'repetition' | 'status' | 'error' | 'stoppingReason'
>;

export interface JunitReportInput {
  run: JunitRun;
  /** Every session of the run. */
  sessions: readonly JunitSession[];
  /** The run's results by test case (./case-results.ts). */
  cases: ReadonlyMap<string, CaseResult>;
  testCases: ReadonlyMap<string, TestCase>;
  /** Test names by id. */
  testNames: ReadonlyMap<string, string>;
  comparison?: { baseRunId: string; metrics: readonly MetricComparison[] };
}

/** Figures in messages: four significant digits are plenty to read, and keep the line short. */
const fmt = (x: number | null): string => (x === null ? 'n/a' : String(Number(x.toPrecision(4))));
/** A text in a one-line message attribute; the whole text is in the element's body. */
const short = (text: string): string => firstCharacters(text.replace(/\s+/g, ' ').trim(), 300);
const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

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
        `test case ${c.testCaseId}: mean score ${score} over ${plural(metric.scored.length, 'evaluation')}`,
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

/** A session's test case, in error unless it COMPLETED. */
function sessionCase(s: JunitSession, classname: string, name: string): JunitCase {
  const out: JunitCase = { classname, name };
  if (s.status === 'COMPLETED') return out;
  const where = [`session ${s.id}`, `test case ${s.testCaseId ?? 'none'}`, `repetition ${s.repetition ?? 1}`].join(
    ', ',
  );
  const stopped = s.stoppingReason ? [`stopping reason: ${s.stoppingReason}`] : [];
  if (s.status === 'FAILED') {
    const error = s.error ?? 'no error recorded';
    return {
      ...out,
      error: { message: `session FAILED: ${short(error)}`, text: [where, error, ...stopped].join('\n') },
    };
  }
  return {
    ...out,
    error: {
      message: `session ${s.status}: the run finished without it`,
      text: [where, `status ${s.status}`, ...stopped].join('\n'),
    },
  };
}

/** The most frequent of the sessions' errors, with how many sessions gave it. */
function commonError(sessions: readonly JunitSession[]): { error: string; count: number } | undefined {
  const counts = new Map<string, number>();
  for (const s of sessions) if (s.status === 'FAILED' && s.error) counts.set(s.error, (counts.get(s.error) ?? 0) + 1);
  let best: { error: string; count: number } | undefined;
  for (const [error, count] of counts) if (!best || count > best.count) best = { error, count };
  return best;
}

/** Why the run did not complete: its own `error` when it has one, else what its sessions say. */
function runCase(run: JunitRun, sessions: readonly JunitSession[]): JunitCase {
  const completed = sessions.filter((s) => s.status === 'COMPLETED').length;
  const failed = sessions.filter((s) => s.status === 'FAILED').length;
  const tally = `${completed} of ${plural(sessions.length, 'session')} completed, ${failed} failed`;
  const common = commonError(sessions);
  const mostly = common ? `; ${common.count} of them: ${common.error}` : '';
  const why =
    run.error ??
    (run.status === 'CANCELLED'
      ? `the run was cancelled: it tested only part of its cases (${tally})`
      : sessions.length === 0
        ? 'the run has no sessions'
        : completed === 0
          ? `none of its ${plural(sessions.length, 'session')} completed (${failed} failed${mostly})`
          : tally);
  return {
    classname: 'run',
    name: 'run',
    error: {
      message: `run ${run.status}: ${short(why)}`,
      text: [`run ${run.id} (${run.name}) is ${run.status}`, why, tally].join('\n'),
    },
  };
}

/** Cases in the order the run ran them: by test (the run's order), then file order, then id. */
function caseOrder(run: JunitRun, testCases: ReadonlyMap<string, TestCase>) {
  const testRank = new Map(run.testIds.map((id, i) => [id, i]));
  const rank = (testId: string | null) => testRank.get(testId ?? '') ?? run.testIds.length;
  const index = (testCaseId: string | null) =>
    (testCaseId ? testCases.get(testCaseId)?.index : undefined) ?? Number.MAX_SAFE_INTEGER;
  return (
    a: { testId: string | null; testCaseId: string | null },
    b: { testId: string | null; testCaseId: string | null },
  ) =>
    rank(a.testId) - rank(b.testId) ||
    index(a.testCaseId) - index(b.testCaseId) ||
    ((a.testCaseId ?? '') < (b.testCaseId ?? '') ? -1 : (a.testCaseId ?? '') > (b.testCaseId ?? '') ? 1 : 0);
}

/** The suites of the report (see the module's comment), in document order. */
export function junitSuites(input: JunitReportInput): JunitSuite[] {
  const { run, cases, testCases, testNames } = input;
  const threshold = run.threshold ?? DEFAULT_THRESHOLD;
  const order = caseOrder(run, testCases);
  const classname = (testId: string | null) => (testId && testNames.get(testId)) || testId || 'test';
  const suites: JunitSuite[] = [];
  if (run.status === 'FAILED' || run.status === 'CANCELLED')
    suites.push({ name: 'run', cases: [runCase(run, input.sessions)] });

  const repeated = (run.repetitions ?? 1) > 1;
  const sessions = [...input.sessions].sort(
    (a, b) => order(a, b) || (a.repetition ?? 1) - (b.repetition ?? 1) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
  suites.push({
    name: 'sessions',
    cases: sessions.map((s) => {
      const name = s.testCaseId ? caseName(testCases.get(s.testCaseId), s.testCaseId) : s.id;
      return sessionCase(s, classname(s.testId), repeated ? `${name} (repetition ${s.repetition ?? 1})` : name);
    }),
  });

  const inOrder = [...cases.values()].sort(order);
  for (const metricId of run.metricIds)
    suites.push({
      name: run._metricNames?.[metricId] ?? metricId,
      cases: inOrder.flatMap((c): JunitCase[] => {
        const metric = c.metrics.get(metricId);
        if (!metric || (metric.scored.length === 0 && metric.failed.length === 0)) return [];
        return [
          {
            classname: classname(c.testId),
            name: caseName(testCases.get(c.testCaseId), c.testCaseId),
            ...caseOutcome(c, metric, threshold),
          },
        ];
      }),
    });
  if (input.comparison) {
    const base = input.comparison.baseRunId;
    suites.push({ name: 'comparison', cases: input.comparison.metrics.map((m) => comparisonCase(m, base)) });
  }
  return suites;
}

/** The run's JUnit XML document. */
export function junitReport(input: JunitReportInput): string {
  return junitXml(input.run.name, junitSuites(input));
}
