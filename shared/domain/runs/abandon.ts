import { markQueued, writeStep, type RunRef } from '../../db/run-steps.js';
import { getRunSession, getStoredRun, type RunSession } from '../../db/runs.js';
import { failedEveryReceive } from '../../queue/batch.js';
import { enqueueRunJobs } from '../../queue/run-queue.js';
import type { StepCarry } from './step-context.js';
import { abandonEvaluation } from '../evaluation/evaluator.js';
import { clock } from '../common/clock.js';
import { afterCounted } from './run-finish.js';
import { closeOf, runMayBeDone } from './session/close.js';
import { countSession, writeClose } from './session/closing.js';
import type { StepJob } from './session/context.js';

/**
 * A step that failed on every receive (storage or queue trouble: agent failures end the session
 * themselves), so the run does not stay RUNNING for ever:
 * - during the conversation, the session ends FAILED naming the step and the cause, and its
 *   closing step (scoring nothing, counting it, finishing the run when it was the last) is queued;
 * - at the close (the evaluations could not be planned), the session keeps its final status, gets
 *   no evaluations and the cause as its error, and is counted;
 * - while scoring, the evaluations still PENDING end FAILED with the cause (credits released) and
 *   the session is counted with the outcomes it has.
 */
export async function abandonStep(job: StepJob, error: Error): Promise<void> {
  const s = await getRunSession(job.sessionId);
  if (!s || s._runId !== job.runId || s._seq !== job.seq || s._phase === 'DONE') return; // done or moved on
  const cause = failedEveryReceive(`step ${job.seq + 1}`, error);
  const run = await runRefOf(job);
  const planIndex = job.carry?.planIndex;
  if (s._phase === 'EVALUATING') {
    await finishIfDone(run, await countSession(s, run, planIndex, (id) => abandonEvaluation(s.id, id, cause)));
    return;
  }
  if (s._end || s.status !== 'PENDING') {
    // Closed with no evaluations: the close counts the session.
    const end = s._end ?? { status: 'FAILED' as const, stoppingReason: null, error: null };
    const error = end.error ?? `the session's evaluations were not planned: ${cause}`;
    const now = clock.now().toISOString();
    await finishIfDone(run, await writeClose(closeOf(s, { ...end, error }, [], { run, planIndex, now })));
    return;
  }
  const end = { status: 'FAILED' as const, stoppingReason: null, error: `the session stopped: ${cause}` };
  // A session still QUEUED is counted as pending: it moves to running, as its first step would have.
  const queued = s._phase === 'QUEUED';
  const moved = await writeStep({
    run,
    session: s,
    seq: s._seq,
    set: { _seq: s._seq + 1, _end: end, ...(queued ? { _phase: 'RUNNING' } : {}) },
    ...(queued ? { phase: 'QUEUED' as const, counts: [{ kind: 'start' as const }] } : {}),
  });
  if (moved) await enqueueNext(job, { ...s, _seq: s._seq + 1 }, job.carry);
}

/**
 * Ends the scoring of a session whose evaluations are stuck (the stall watchdog): each evaluation
 * still PENDING ends FAILED naming `cause` (its credits released), and the session is counted with
 * the outcomes it has, as a step that fails on every receive does.
 */
export async function abandonScoring(
  s: RunSession,
  run: RunRef,
  planIndex: number | undefined,
  cause: string,
): Promise<void> {
  if (s._phase !== 'EVALUATING') return;
  await finishIfDone(run, await countSession(s, run, planIndex, (id) => abandonEvaluation(s.id, id, cause)));
}

/** After a count: the run is finished when the count says it may be. */
async function finishIfDone(run: RunRef, counted: 'moved' | 'closed' | 'counted' | 'last'): Promise<void> {
  if ((counted === 'counted' || counted === 'last') && runMayBeDone(run, counted)) await afterCounted(run, '', true);
}

/** Where a job's run counts its sessions: said by its carry, else by the run. */
async function runRefOf(job: StepJob): Promise<RunRef> {
  const ref = { organizationId: job.organizationId, runId: job.runId };
  if (job.carry) return { ...ref, shards: job.carry.shards, threshold: job.carry.threshold };
  const run = await getStoredRun(job.organizationId, job.runId);
  return { ...ref, shards: run._shards, ...(run._passCounted ? { threshold: run.threshold ?? 0.5 } : {}) };
}

async function enqueueNext(job: StepJob, session: RunSession, carry: StepCarry | undefined): Promise<void> {
  await enqueueRunJobs([
    {
      kind: 'step',
      organizationId: job.organizationId,
      runId: job.runId,
      sessionId: job.sessionId,
      seq: session._seq,
      ...(carry ? { carry } : {}),
    },
  ]);
  await markQueued(job.sessionId, session._seq);
}
