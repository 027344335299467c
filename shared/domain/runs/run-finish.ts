import { readShard } from '../../db/run-counters.js';
import { shardOfSession, type RunRef } from '../../db/run-steps.js';
import { finishRunWhenDone, getRunWithShards, markTests, setRunStatus } from '../../db/runs.js';
import { storePassFigures } from '../../db/run-results.js';
import { logger } from '../../observability/logger.js';
import type { RunStatus } from '../../schemas/runs.js';
import { clock } from '../common/clock.js';
import { eventWrites, NO_EVENT, publish } from '../webhooks/events.js';
import { computeBargeInRecovery } from './barge-in-recovery.js';
import { computePassFigures, countersOf, runView } from './run-view.js';
import { refreshRunVoice, runVoiceFigures } from './run-voice.js';

/** How a run finishes: once its last session is counted, with its figures and its event. */
/**
 * Finishes the run when its last session is counted, and sends `run.completed` / `run.failed`
 * (the run as it now reads): the event is written in the transaction that finishes the run, so it
 * goes out once however many jobs race to finish it or are redelivered. A run with counter shards
 * finishes once the fan-out sealed them and every session they expect is counted: its counters
 * are summed into its item then (exact from there on), and a cancelled run's too. The pass figures
 * are computed when it finishes (every session is counted, every evaluation settled) and written
 * with its status, so a run never reads as finished without them.
 */
export async function finishRun(orgId: string, runId: string, at: string): Promise<RunStatus | undefined> {
  const { run, sums } = await getRunWithShards(orgId, runId);
  if (!run._shards || !sums) return finishUnsharded(orgId, runId, at);
  if (run._final || !run._fanoutDone || !sums.sealed) return undefined;
  if (sums.completed + sums.failed < sums.expected) return undefined;
  const { progress } = countersOf(run, sums);
  const stats = Object.fromEntries(
    run.metricIds.map((id) => [id, sums.stats[id] ?? { n: 0, sx: 0, sxx: 0, failed: 0, skipped: 0 }]),
  );
  // A PHONE run's voice figures, from its sessions' as they stand (the stamp says which landed).
  const voice = run.channel === 'PHONE' ? { _voice: await runVoiceFigures(runId), _voiceOf: run._voiceStamp ?? 0 } : {};
  const folded = { progress: { ...progress, pending: 0, running: 0 }, _stats: stats, _final: true, ...voice };
  const finishing = run.status === 'PENDING' || run.status === 'RUNNING';
  const status: RunStatus = finishing ? (progress.completed > 0 ? 'COMPLETED' : 'FAILED') : run.status;
  const finished = finishing
    ? {
        ...folded,
        status,
        finishedAt: at,
        ...(run.startedAt ? {} : { startedAt: at }),
        // One repetition's pass rate is counted on the shards; repeated cases need every session read.
        ...((run.repetitions ?? 1) > 1 || !run._passCounted ? { _passFigures: await computePassFigures(run) } : {}),
        ...(run.channel === 'PHONE' ? { _bargeInRecovery: await computeBargeInRecovery(run) } : {}),
      }
    : undefined;
  const set = finished ?? folded;
  const writes = finishing
    ? await eventWrites(
        orgId,
        status === 'COMPLETED' ? 'run.completed' : 'run.failed',
        runView({ ...run, ...set }),
        `run.finished#${runId}`,
      )
    : NO_EVENT;
  const done = await setRunStatus(
    orgId,
    runId,
    [run.status],
    set,
    { condition: 'attribute_not_exists(#final)', values: {}, names: { '#final': '_final' } },
    writes.items,
  );
  if (!done) return undefined;
  // A session's figures that landed while these were computed: brought in now (or by its job).
  if (run.channel === 'PHONE') await refreshRunVoice(orgId, runId);
  // The tests that got evaluations or traces say so (GET /tests?hasEvaluations, hasTraces), once
  // per run rather than once per session (every session writing the test would make it a hot item).
  const got = (counts: Record<number, number>) => run._plan.flatMap((p, i) => ((counts[i] ?? 0) > 0 ? [p.testId] : []));
  await markTests(orgId, got(sums.evaluations), '_hasEvaluations');
  await markTests(orgId, got(sums.traces), '_hasTraces');
  if (finishing) await publish(writes);
  return finishing ? status : undefined;
}

/** A run without counter shards: finished from the counters on its item. */
async function finishUnsharded(orgId: string, runId: string, at: string): Promise<RunStatus | undefined> {
  let writes = NO_EVENT;
  const status = await finishRunWhenDone(orgId, runId, at, async (run, outcome) => {
    const figures = await computePassFigures(run);
    await storePassFigures(orgId, runId, figures);
    writes = await eventWrites(
      orgId,
      outcome === 'COMPLETED' ? 'run.completed' : 'run.failed',
      runView({ ...run, _passFigures: figures }),
      `run.finished#${runId}`,
    );
    return writes.items;
  });
  if (status) await publish(writes);
  return status;
}

/**
 * After a session was counted on `shard`: the run may be finished. Its own shard (one read) says
 * whether it can be: only the sessions that complete a sealed shard read every shard. `mayBeDone`:
 * the count itself said so (its session was the last of its shard, or the run has no shards).
 */
export async function afterCounted(run: RunRef, sessionId: string, mayBeDone = false): Promise<void> {
  const shard = mayBeDone ? undefined : shardOfSession(run, sessionId);
  if (shard !== undefined) {
    const own = await readShard(run.runId, shard);
    if (!own.sealed || own.completed + own.failed < own.expected) return;
  }
  const status = await finishRun(run.organizationId, run.runId, clock.now().toISOString());
  if (status) logger.info('run finished', { runId: run.runId, status });
}
