/**
 * GET /runs/{id}/junit: a finished run as JUnit XML for a CI server. This module reads what the
 * report needs (the run, its sessions and their evaluations, the test cases and tests, and with
 * `baseRunId` the comparison); ./junit-report.ts says what the document holds.
 */
import type { AuthContext } from '../../auth/context.js';
import { runResults, type SessionResult } from '../../db/run-results.js';
import type { StoredRun } from '../../db/runs.js';
import { storedTestCases, storedTests } from '../../db/test-case-reads.js';
import type { MetricComparison } from '../../schemas/runs.js';
import { caseResults, type CaseResult } from './case-results.js';
import { comparisonWithCases } from './comparison.js';
import { junitReport } from './junit-report.js';
import { finishedRun } from './pairing.js';

export async function runJunitFor(auth: AuthContext, runId: string, baseRunId?: string): Promise<string> {
  let run: StoredRun;
  let sessions: SessionResult[];
  let cases: Map<string, CaseResult>;
  let comparison: { metrics: MetricComparison[]; baseRunId: string } | undefined;
  if (baseRunId) {
    // The statistics package loads only for a report with a comparison: a plain report never needs
    // it. The imported module is a leaf (the package alone): a lazy module shipped beside the bundle.
    const { studentT } = await import('#student-t');
    const pair = await comparisonWithCases(auth, runId, baseRunId, studentT);
    run = pair.run;
    sessions = pair.runSessions;
    cases = pair.runCases;
    comparison = pair.comparison;
  } else {
    run = await finishedRun(auth, runId, undefined, 'have a JUnit report');
    sessions = await runResults(run.id);
    cases = caseResults(sessions);
  }
  const org = auth.organizationId;
  const caseIds = [...new Set(sessions.map((s) => s.session.testCaseId).filter((id): id is string => Boolean(id)))];
  const testIds = [...new Set(sessions.map((s) => s.session.testId).filter((id): id is string => Boolean(id)))];
  const [testCases, tests] = await Promise.all([storedTestCases(org, caseIds), storedTests(org, testIds)]);
  return junitReport({
    run,
    sessions: sessions.map((s) => s.session),
    cases,
    testCases,
    testNames: new Map([...tests].map(([id, test]) => [id, test.name])),
    comparison,
  });
}
