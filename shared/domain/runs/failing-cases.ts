/**
 * A run's cases that did not pass, with what the agent answered and why each metric scored it low:
 * what a developer (or their coding agent) reads first after a run. One row per session (a case
 * in one repetition), as the console's run page marks them: a session did not pass when it FAILED,
 * when a SUCCESS evaluation of a metric scored below the run's threshold, or when an evaluation
 * FAILED (no score to pass with). Rows come in test-case order, then by repetition.
 */
import type { AuthContext } from '../../auth/context.js';
import { runResults, type SessionResult } from '../../db/run-results.js';
import { getStoredRun } from '../../db/runs.js';
import { listTurns } from '../../db/sessions.js';
import { storedTestCases } from '../../db/test-case-reads.js';
import { ValidationError } from '../../errors.js';
import { MAX_CASE_TEXT, type RunStatus } from '../../schemas/runs.js';
import { caseInputText, firstCharacters } from './pairing.js';

export interface FailingCasesQuery {
  /** Only the shortfalls of this metric (a session that FAILED as a whole is listed for any). */
  metricId?: string;
  limit: number;
  offset: number;
}

export interface FailingCase {
  sessionId: string;
  testCaseId: string | null;
  repetition: number;
  sessionStatus: string;
  /** Why the session FAILED, when it did. */
  sessionError: string | null;
  input: string;
  expectedOutput: string | null;
  /** Each turn's input and the agent's output, in order. */
  turns: { input: string; output: string | null }[];
  /** The metrics that did not pass: a score below the threshold with the judge's reason, or a FAILED evaluation's error. */
  metrics: { metricId: string; name: string; score: number | null; reason: string | null; error: string | null }[];
}

export interface FailingCases {
  runId: string;
  runStatus: RunStatus;
  threshold: number;
  /** Sessions that did not pass (before limit and offset). */
  total: number;
  /** Sessions of the run read. */
  sessions: number;
  offset: number;
  items: FailingCase[];
}

const cut = (text: string | null | undefined): string | null => {
  if (text === null || text === undefined) return null;
  const kept = firstCharacters(text, MAX_CASE_TEXT);
  return kept.length < text.length ? `${kept}… (${[...text].length - [...kept].length} more characters)` : kept;
};

/** The metrics one session did not pass (all, or `metricId`'s alone). */
function shortfalls(result: SessionResult, threshold: number, metricId?: string): FailingCase['metrics'] {
  return result.evaluations
    .filter((e) => metricId === undefined || e.metricId === metricId)
    .filter(
      (e) => (e.status === 'SUCCESS' && typeof e.score === 'number' && e.score < threshold) || e.status === 'FAILED',
    )
    .map((e) => ({
      metricId: e.metricId,
      name: e.metricName,
      score: e.status === 'SUCCESS' ? e.score : null,
      reason: cut(e.reason),
      error: e.status === 'FAILED' ? cut(e.error) : null,
    }));
}

/** A run's sessions that did not pass, a page at a time: 403 another organization's run, 404 none. */
export async function failingCasesFor(
  auth: AuthContext,
  runId: string,
  query: FailingCasesQuery,
): Promise<FailingCases> {
  const run = await getStoredRun(auth.organizationId, runId);
  if (query.metricId !== undefined && !run.metricIds.includes(query.metricId))
    throw new ValidationError(
      `metricId: ${query.metricId} is not one of the run's metrics (${run.metricIds.join(', ')})`,
    );
  const results = await runResults(run.id);
  const failing = results
    .map((result) => ({ result, metrics: shortfalls(result, run.threshold, query.metricId) }))
    .filter(({ result, metrics }) => result.session.status === 'FAILED' || metrics.length > 0)
    .sort(
      (a, b) =>
        compare(a.result.session.testCaseId ?? '', b.result.session.testCaseId ?? '') ||
        (a.result.session.repetition ?? 1) - (b.result.session.repetition ?? 1) ||
        compare(a.result.session.id, b.result.session.id),
    );
  const page = failing.slice(query.offset, query.offset + query.limit);
  // Texts only for the page: the cases (inputs may live in S3) and each session's turns.
  const caseIds = [...new Set(page.map((f) => f.result.session.testCaseId).filter((id): id is string => Boolean(id)))];
  const [cases, turns] = await Promise.all([
    storedTestCases(auth.organizationId, caseIds),
    Promise.all(page.map((f) => listTurns(f.result.session.id))),
  ]);
  return {
    runId: run.id,
    runStatus: run.status,
    threshold: run.threshold,
    total: failing.length,
    sessions: results.length,
    offset: query.offset,
    items: page.map(({ result: { session }, metrics }, i) => {
      const testCase = session.testCaseId ? cases.get(session.testCaseId) : undefined;
      return {
        sessionId: session.id,
        testCaseId: session.testCaseId,
        repetition: session.repetition ?? 1,
        sessionStatus: session.status,
        sessionError: cut(session.error),
        input: cut(caseInputText(testCase?.input)) ?? '',
        expectedOutput: cut(testCase?.expectedOutput),
        turns: [...turns[i]!]
          .sort((a, b) => a.index - b.index)
          .map((t) => ({ input: cut(t.input) ?? '', output: cut(t.output) })),
        metrics,
      };
    }),
  };
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
