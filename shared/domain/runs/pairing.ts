/**
 * Two finished runs of one organization paired by test case: what the comparison, its cases and the
 * JUnit report share. Both runs must be finished: a comparison of a run still scoring would change
 * under its reader, and CI would gate on half a run. No statistics here, so a route that only lists
 * or reports cases does not load the Student t distribution.
 */
import type { AuthContext } from '../../auth/context.js';
import { runResults } from '../../db/run-results.js';
import { getStoredRun, type StoredRun } from '../../db/runs.js';
import { ConflictError, ForbiddenError, NotFoundError } from '../../errors.js';
import { caseResults, caseScore, type CaseResult } from './case-results.js';
import type { TestCase } from '../../schemas/tests.js';

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

/** Both runs, checked (the compared run first, so its own 403/404/409 wins), the run's sessions, and both runs' results by case. */
export async function loadPair(auth: AuthContext, runId: string, baseRunId: string) {
  const run = await finishedRun(auth, runId);
  const base = await finishedRun(auth, baseRunId, 'baseRunId');
  const [runSessions, baseSessions] = await Promise.all([runResults(run.id), runResults(base.id)]);
  return { run, base, runSessions, runCases: caseResults(runSessions), baseCases: caseResults(baseSessions) };
}

export interface Pair {
  testCaseId: string;
  base: number;
  run: number;
}

export interface ComparedMetric {
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
export function comparedMetrics(
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
