import { getRecord, transact, type TransactItem } from '../../db/catalog.js';
import { keys } from '../../db/keys.js';
import {
  deleteQueuedEntry,
  evaluationGuardWrite,
  getEvaluationGuard,
  getQueuedEntry,
  monitorAttemptWrite,
  monitorScoreWrites,
  type EvaluationGuard,
} from '../../db/monitors.js';
import { newEvaluationWrite } from '../../db/sessions.js';
import { clock } from '../common/clock.js';
import { monitorEntity } from '../common/entities.js';
import { evaluationExtensions, runEvaluation } from '../evaluation/evaluator.js';
import { newEvaluation } from '../evaluation/evaluations.js';
import { isMonitorable } from '../metrics/metric-rules.js';
import { loadFamily } from './families.js';
import type { Monitor } from '../../schemas/monitors.js';

/** What a monitor's evaluation needs to know about the session it scores (kept on its guard item). */
type Guard = EvaluationGuard;

/**
 * A monitor evaluation job (at-least-once delivery, exactly-once effect): for each bound family,
 * the family's current revision at scoring time is evaluated once per (monitor, session, family)
 * (a guard item makes a redelivered job reuse the same evaluation), then the session leaves the
 * queue.
 */
export async function processMonitorJob(monitorId: string, sessionId: string): Promise<void> {
  const queued = await getQueuedEntry(monitorId, sessionId);
  if (!queued) return; // already done
  const orgId = String(queued.organizationId);
  let monitor: Monitor | undefined;
  try {
    monitor = await getRecord<Monitor>(monitorEntity, orgId, monitorId);
  } catch {
    monitor = undefined; // deleted since: nothing to score
  }
  const now = clock.now();
  for (const groupId of monitor?.metricGroupIds ?? []) {
    let guard = await getEvaluationGuard(monitorId, sessionId, groupId);
    if (!guard) {
      const family = await loadFamily(orgId, groupId, now);
      const metric = family.current;
      if (!metric || !isMonitorable(metric, now)) continue;
      const evaluation = newEvaluation({
        organizationId: orgId,
        sessionId,
        inferenceResultId: null,
        metric: { id: metric.id, metricGroupId: groupId, name: metric.name },
        monitorId,
        status: 'PENDING',
        createdAt: now.toISOString(),
      });
      const newGuard: Guard = {
        evaluationId: evaluation.id,
        weight: Number(queued.weight),
        description: String(queued.description ?? ''),
        turns: Number(queued.turns ?? 0),
      };
      try {
        await transact([evaluationGuardWrite(monitorId, sessionId, groupId, newGuard), newEvaluationWrite(evaluation)]);
        guard = newGuard;
      } catch {
        guard = await getEvaluationGuard(monitorId, sessionId, groupId);
        if (!guard) throw new Error(`could not create the evaluation of monitor ${monitorId} for session ${sessionId}`);
      }
    }
    await runEvaluation(sessionId, guard.evaluationId);
  }
  await deleteQueuedEntry(monitorId, sessionId);
}

// ---------- the monitor side of the evaluator ----------

evaluationExtensions.monitorLimit = async (evaluation, cycle) => {
  const monitor = await getRecord<Monitor>(monitorEntity, evaluation.organizationId, evaluation.monitorId!, {
    includeDeleted: true,
  });
  return { key: keys.monitorSpend(monitor.id, cycle), cap: monitor.monthlyCreditCap };
};

/**
 * Written with a monitor evaluation's result: the attempt (for the FAILING rule) and, on success,
 * the score (for the daily bucket), the scored-session entry and the bucket's dirty marker.
 */
evaluationExtensions.onSettled = async (evaluation) => {
  const monitorId = evaluation.monitorId!;
  const at = evaluation.evaluatedAt!;
  const items: TransactItem[] = [
    monitorAttemptWrite(monitorId, {
      evaluationId: evaluation.id,
      at,
      ok: evaluation.status === 'SUCCESS',
      ttl: ttlIn(90),
    }),
  ];
  if (evaluation.status !== 'SUCCESS' || evaluation.score === null) return items;
  const guard = await getEvaluationGuard(monitorId, evaluation.sessionId, evaluation.metricGroupId);
  items.push(
    ...monitorScoreWrites(monitorId, {
      sessionId: evaluation.sessionId,
      groupId: evaluation.metricGroupId,
      metricId: evaluation.metricId,
      score: evaluation.score,
      weight: guard?.weight ?? 1,
      evaluatedAt: at,
      settledAtTurn: guard?.turns ?? null,
      description: guard?.description ?? '',
      touchedAt: `${clock.now().toISOString()}#${evaluation.id}`,
    }),
  );
  return items;
};

evaluationExtensions.onNoCredits = async () => undefined;

function ttlIn(days: number): number {
  return Math.floor(clock.now().getTime() / 1000) + days * 86_400;
}
