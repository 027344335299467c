import type { AuthContext } from '../../auth/context.js';
import { transact, type TransactItem } from '../../db/catalog.js';
import { getVisibleMetric } from '../../db/metrics.js';
import {
  evaluationWriteWhile,
  findByOwnId,
  getEvaluationItem,
  getSession,
  listEvaluations,
  newEvaluationWrite,
  requeueFailedEvaluation,
} from '../../db/sessions.js';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../errors.js';
import type { StoredMetric } from '../../schemas/metrics.js';
import type { Evaluation, EvaluationCreate, EvaluationListQuery, EvaluationUpdate } from '../../schemas/sessions.js';
import { enqueue } from '../../queue/evaluation-queue.js';
import { clock } from '../common/clock.js';
import { missingParams } from './context.js';
import { loadSources } from './sources.js';
import { newId, wrongKindOfId } from '../common/ids.js';
import type { Page } from '../common/list.js';
import { testActivityUpdate } from '../sessions/sessions.js';
import { bodyReference } from '../common/references.js';
import type { Session, Turn } from '../../schemas/sessions.js';

/** A new evaluation record, unscored. */
export function newEvaluation(f: {
  organizationId: string;
  sessionId: string;
  inferenceResultId: string | null;
  metric: Pick<StoredMetric, 'id' | 'metricGroupId' | 'name'>;
  monitorId: string | null;
  status: Evaluation['status'];
  createdAt: string;
}): Evaluation {
  return {
    id: newId('evaluation'),
    organizationId: f.organizationId,
    sessionId: f.sessionId,
    inferenceResultId: f.inferenceResultId,
    metricId: f.metric.id,
    metricGroupId: f.metric.metricGroupId,
    metricName: f.metric.name,
    monitorId: f.monitorId,
    status: f.status,
    score: null,
    reason: null,
    error: null,
    creditsUsed: 0,
    humanScore: null,
    humanReason: null,
    createdAt: f.createdAt,
    evaluatedAt: null,
  };
}

/** The status an evaluation starts in, by its metric's source. */
export function initialStatus(metric: Pick<StoredMetric, 'source'>): Evaluation['status'] {
  if (metric.source === 'SELF_HOSTED') return 'SUCCESS';
  if (metric.source === 'HUMAN_EVALUATION') return 'PENDING_HUMAN';
  return 'PENDING';
}

function sessionFor(auth: AuthContext, id: string): Promise<Session> {
  return bodyReference(() => getSession(auth.organizationId, id), 'sessionId', id, 'session');
}

/** A metric named in a body's `metricIds`: unknown or deleted is a 400 naming the field. */
export async function metricFor(auth: AuthContext, id: string): Promise<StoredMetric> {
  let metric: StoredMetric;
  try {
    metric = await getVisibleMetric(auth.organizationId, id);
  } catch (error) {
    if (error instanceof NotFoundError)
      throw new ValidationError(`metricIds: ${wrongKindOfId(id, 'metric') ?? `metric ${id} does not exist`}`);
    throw error;
  }
  if (metric.deletedAt) throw new ValidationError(`metricIds: metric ${id} does not exist`);
  return metric;
}

/**
 * POST /evaluations: one evaluation per metric. SELF_HOSTED take their score from `scores`
 * (SUCCESS at once); HUMAN_EVALUATION wait for a human (PENDING_HUMAN); AI-judged and
 * deterministic ones go to the evaluator (PENDING); a metric the session cannot satisfy is SKIPPED
 * with the missing parameters in `error`.
 */
export async function createEvaluations(auth: AuthContext, input: EvaluationCreate): Promise<Evaluation[]> {
  const session = await sessionFor(auth, input.sessionId);
  if (input.inferenceResultId) {
    const turn = await findByOwnId<Turn>(input.inferenceResultId);
    if (!turn || turn.sessionId !== session.id)
      throw new ValidationError(`inferenceResultId ${input.inferenceResultId} is not a turn of session ${session.id}`);
  }
  const metrics = [];
  for (const id of input.metricIds) metrics.push(await metricFor(auth, id));
  const scores = new Map((input.scores ?? []).map((s) => [s.metricId, s]));
  for (const id of scores.keys()) {
    if (!input.metricIds.includes(id)) throw new ValidationError(`scores: metric ${id} is not in metricIds`);
  }
  const src = await loadSources(session);
  const now = clock.now().toISOString();
  const evaluations: Evaluation[] = metrics.map((m) => {
    const base = newEvaluation({
      organizationId: auth.organizationId,
      sessionId: session.id,
      inferenceResultId: input.inferenceResultId ?? null,
      metric: m,
      monitorId: null,
      status: initialStatus(m),
      createdAt: now,
    });
    if (m.source === 'SELF_HOSTED') {
      const given = scores.get(m.id);
      if (!given) throw new ValidationError(`scores must hold a score for metric ${m.id} (source SELF_HOSTED)`);
      return { ...base, score: given.score, reason: given.reason ?? null, evaluatedAt: now };
    }
    if (scores.has(m.id))
      throw new ValidationError(`scores: metric ${m.id} is not SELF_HOSTED; the platform scores it`);
    const missing = missingParams(src, m.evaluationParams);
    if (missing.length) return { ...base, status: 'SKIPPED', error: `missing ${missing.join('; ')}`, evaluatedAt: now };
    return base;
  });
  const items: TransactItem[] = evaluations.map(newEvaluationWrite);
  items.push(...testActivityUpdate(session, '_hasEvaluations'));
  await transact(items);
  await enqueue(
    evaluations
      .filter((e) => e.status === 'PENDING')
      .map((e) => ({ kind: 'evaluation' as const, sessionId: e.sessionId, evaluationId: e.id })),
  );
  return evaluations;
}

/**
 * Records written before evaluations carried `metricName` get it from their metric on read: one
 * GetItem per distinct metric among them (none for newer records). A metric is never removed
 * (deletes are soft), so the name is always found; were it not, the field stays absent.
 */
async function withMetricNames(orgId: string, evaluations: Evaluation[]): Promise<Evaluation[]> {
  const missing = [...new Set(evaluations.filter((e) => typeof e.metricName !== 'string').map((e) => e.metricId))];
  if (missing.length === 0) return evaluations;
  const names = new Map<string, string>();
  for (const id of missing) {
    try {
      names.set(id, (await getVisibleMetric(orgId, id)).name);
    } catch (error) {
      if (!(error instanceof NotFoundError || error instanceof ForbiddenError)) throw error;
    }
  }
  return evaluations.map((e) =>
    typeof e.metricName === 'string' || !names.has(e.metricId) ? e : { ...e, metricName: names.get(e.metricId)! },
  );
}

export async function getEvaluation(auth: AuthContext, id: string): Promise<Evaluation> {
  const evaluation = await findByOwnId<Evaluation>(id);
  if (!evaluation || !id.startsWith('eval_')) throw new NotFoundError(`evaluation ${id} not found`);
  if (evaluation.organizationId !== auth.organizationId)
    throw new ForbiddenError(`evaluation ${id} belongs to another organization`);
  const [full] = await withMetricNames(auth.organizationId, [
    (await getEvaluationItem(evaluation.sessionId, id)) ?? evaluation,
  ]);
  return full!;
}

export async function listEvaluationsOf(auth: AuthContext, query: EvaluationListQuery): Promise<Page<Evaluation>> {
  const all: Evaluation[] = [];
  for (const id of query.sessionIds) {
    await getSession(auth.organizationId, id, { includeDeleted: true });
    all.push(...(await listEvaluations(id)));
  }
  const metricIds = query.metricIds ? new Set(query.metricIds) : undefined;
  const statuses = query.statuses ? new Set<string>(query.statuses) : undefined;
  const kept = all
    .filter((e) => (!metricIds || metricIds.has(e.metricId)) && (!statuses || statuses.has(e.status)))
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.id.localeCompare(b.id));
  const offset = query.offset ?? 0;
  return {
    items: await withMetricNames(auth.organizationId, kept.slice(offset, offset + (query.limit ?? 100))),
    total: kept.length,
  };
}

/** PATCH /evaluations/{id}: a human score for a HUMAN_EVALUATION evaluation. */
export async function scoreByHuman(auth: AuthContext, id: string, body: EvaluationUpdate): Promise<Evaluation> {
  const current = await getEvaluation(auth, id);
  if (current.status !== 'PENDING_HUMAN' && !(current.status === 'SUCCESS' && current.humanScore !== null)) {
    throw new ValidationError(`evaluation ${id} does not take a human score (status ${current.status})`);
  }
  const now = clock.now().toISOString();
  const updated: Evaluation = {
    ...current,
    status: 'SUCCESS',
    humanScore: body.humanScore,
    humanReason: body.humanReason ?? null,
    score: body.humanScore,
    reason: body.humanReason ?? null,
    evaluatedAt: now,
  };
  await transact([evaluationWriteWhile(updated, current.status)]);
  return updated;
}

/** POST /evaluations/{id}/retry: only a FAILED evaluation goes back to the queue (409 otherwise). */
export async function retryEvaluation(auth: AuthContext, id: string): Promise<Evaluation> {
  const current = await getEvaluation(auth, id);
  if (current.status !== 'FAILED')
    throw new ConflictError(`evaluation ${id} is ${current.status}; only FAILED evaluations can be retried`);
  const reset = await resetForRetry(current);
  await enqueue([{ kind: 'evaluation', sessionId: reset.sessionId, evaluationId: reset.id }]);
  return reset;
}

/** POST /evaluations/{id}/retry: a FAILED evaluation goes back to PENDING (and to the queue). */
export async function resetForRetry(evaluation: Evaluation): Promise<Evaluation> {
  const reset: Evaluation = {
    ...evaluation,
    status: 'PENDING',
    error: null,
    score: null,
    reason: null,
    evaluatedAt: null,
    creditsUsed: 0,
  };
  return requeueFailedEvaluation(reset);
}
