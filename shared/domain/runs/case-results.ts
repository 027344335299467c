/**
 * A run's results per test case, pure: what the comparison and the JUnit report read. A case's
 * score for a metric is the mean of its SUCCESS evaluations of that metric over all its sessions
 * in the run (every repetition, every turn), so repetitions shrink the noise of the comparison.
 */
import type { Evaluation } from '../../schemas/sessions.js';
import type { Session } from '../../schemas/sessions.js';

/** One session of the run with its evaluations (shared/db/run-results.ts reads them). */
export interface SessionEvaluations {
  session: Pick<Session, 'id' | 'testId' | 'testCaseId' | 'repetition'>;
  evaluations: readonly Pick<Evaluation, 'metricId' | 'metricName' | 'status' | 'score' | 'reason' | 'error'>[];
}

export interface ScoredOutcome {
  score: number;
  reason: string | null;
  sessionId: string;
  repetition: number;
}

export interface FailedOutcome {
  error: string | null;
  sessionId: string;
  repetition: number;
}

/** One metric's evaluations of one case. */
export interface CaseMetric {
  /** The metric's name as its evaluations recorded it. */
  name: string;
  scored: ScoredOutcome[];
  failed: FailedOutcome[];
}

export interface CaseResult {
  testCaseId: string;
  testId: string | null;
  /** The case's sessions in this run, by repetition. */
  sessionIds: string[];
  metrics: Map<string, CaseMetric>;
}

/** The mean of a case's SUCCESS scores of a metric; undefined when it has none. */
export function caseScore(metric: CaseMetric | undefined): number | undefined {
  if (!metric || metric.scored.length === 0) return undefined;
  return metric.scored.reduce((s, o) => s + o.score, 0) / metric.scored.length;
}

/** The run's results by test case id (sessions without a test case, which runs never create, are left out). */
export function caseResults(sessions: readonly SessionEvaluations[]): Map<string, CaseResult> {
  const out = new Map<string, CaseResult>();
  const ordered = [...sessions].sort(
    (a, b) =>
      (a.session.repetition ?? 1) - (b.session.repetition ?? 1) ||
      (a.session.id < b.session.id ? -1 : a.session.id > b.session.id ? 1 : 0),
  );
  for (const { session, evaluations } of ordered) {
    if (!session.testCaseId) continue;
    let result = out.get(session.testCaseId);
    if (!result) {
      result = { testCaseId: session.testCaseId, testId: session.testId, sessionIds: [], metrics: new Map() };
      out.set(session.testCaseId, result);
    }
    result.sessionIds.push(session.id);
    const repetition = session.repetition ?? 1;
    for (const e of evaluations) {
      let metric = result.metrics.get(e.metricId);
      if (!metric) {
        metric = { name: e.metricName, scored: [], failed: [] };
        result.metrics.set(e.metricId, metric);
      }
      if (e.status === 'SUCCESS' && typeof e.score === 'number')
        metric.scored.push({ score: e.score, reason: e.reason, sessionId: session.id, repetition });
      else if (e.status === 'FAILED') metric.failed.push({ error: e.error, sessionId: session.id, repetition });
    }
  }
  return out;
}
