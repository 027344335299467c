import { transact, type TransactItem } from '../../db/catalog.js';
import { releaseItem, reserveItem, settleItem } from '../../db/credits.js';
import { keys } from '../../db/keys.js';
import { getVisibleMetric } from '../../db/metrics.js';
import { getModel } from '../../db/models.js';
import { getOrganization } from '../../db/organizations.js';
import {
  getEvaluationItem,
  getSession,
  reserveEvaluationCreditsWrite,
  settleEvaluationWrite,
} from '../../db/sessions.js';
import { askJudge } from '../../judge/client.js';
import type { StoredMetric } from '../../schemas/metrics.js';
import type { Evaluation } from '../../schemas/sessions.js';
import { clock } from '../common/clock.js';
import { loadCheckScorer, scoreCheck } from './checks.js';
import { DETERMINISTIC_METRICS, MetricInputError, MetricSkippedError } from './deterministic.js';
import { parameterValues, type EvaluationSources } from './context.js';
import { AI_JUDGED_SOURCES } from './params.js';
import { loadSources } from './sources.js';
import { buildJudgeMessages } from './judge-prompt.js';
import { cycleOf } from '../accounts/organization.js';
import { countMetric, METRIC } from '../../observability/metrics.js';
import { voiceStateOf } from '../voice/figures.js';
import { requestVoiceFigures } from '../voice/voice-requests.js';

export type Outcome =
  | { status: 'SUCCESS'; score: number; reason: string }
  | { status: 'FAILED' | 'SKIPPED'; error: string };

/**
 * Scores one evaluation (no I/O beyond the judge): deterministic metrics in code, the rest by the
 * judge through the one LLM client (its credits are the caller's ledger, see runEvaluation).
 */
export async function score(
  metric: StoredMetric,
  src: EvaluationSources,
  turnId: string | null,
  judge: { organizationId: string; model: string | undefined },
): Promise<Outcome> {
  const values = parameterValues(src, turnId);
  if (metric.source === 'DETERMINISTIC') {
    // An organization's own deterministic metric is its check; a predefined one is code, by name.
    const check = metric.check;
    if (check) await loadCheckScorer(check);
    const fn = check
      ? (p: Record<string, unknown>) => scoreCheck(metric.name, check, p)
      : DETERMINISTIC_METRICS[metric.name];
    if (!fn) return { status: 'FAILED', error: `no implementation for deterministic metric ${metric.name}` };
    try {
      const result = fn(values as Record<string, unknown>);
      return { status: 'SUCCESS', score: result.score, reason: result.reason };
    } catch (error) {
      if (error instanceof MetricInputError) return { status: 'FAILED', error: error.message };
      if (error instanceof MetricSkippedError) return { status: 'SKIPPED', error: error.message };
      throw error;
    }
  }
  if (!AI_JUDGED_SOURCES.includes(metric.source) || !metric.judgePrompt) {
    return { status: 'FAILED', error: `metric ${metric.id} (source ${metric.source}) is not scored by the platform` };
  }
  const answer = await askJudge(
    judge.organizationId,
    judge.model ?? metric.evaluatorModelName ?? '',
    buildJudgeMessages({ ...metric, judgePrompt: metric.judgePrompt }, values),
  );
  return answer.ok
    ? { status: 'SUCCESS', score: answer.value.score, reason: answer.value.reason }
    : { status: 'FAILED', error: answer.error };
}

/** What one evaluation costs, and against which spend items (the organization's, and its monitor's). */
async function chargeOf(metric: StoredMetric) {
  const model =
    metric.source === 'DETERMINISTIC' || !metric.evaluatorModelName
      ? undefined
      : await getModel(metric.evaluatorModelName);
  const credits = metric.source === 'DETERMINISTIC' ? 0 : (model?.creditsPerEvaluation ?? 1);
  return { credits, model };
}

type Reservation = Evaluation & { reservedCredits?: number; reservedCycle?: string };

/**
 * The credit cycle an evaluation's credits move in: the cycle they were reserved in (a job that
 * resumes after the month turned settles in the cycle it reserved), else the current one.
 */
function ledgerOf(evaluation: Evaluation, now: Date) {
  const { reservedCredits: reserved, reservedCycle } = evaluation as Reservation;
  const cycle = reserved !== undefined && reservedCycle ? reservedCycle : cycleOf(now);
  return { reserved, cycle, orgKey: keys.orgSpend(evaluation.organizationId, cycle) };
}

/**
 * An evaluation whose job failed on every receive (storage trouble, a judge failing in a way it
 * does not report as a FAILED answer): it ends FAILED naming the cause, its reserved credits are
 * released, and a monitor counts it as a failed attempt, as any FAILED result. Already settled: as it is.
 */
export async function abandonEvaluation(
  sessionId: string,
  evaluationId: string,
  cause: string,
): Promise<Evaluation | undefined> {
  const evaluation = await getEvaluationItem(sessionId, evaluationId);
  if (evaluation?.status !== 'PENDING') return evaluation;
  const { reserved, orgKey, cycle } = ledgerOf(evaluation, clock.now());
  const monitor =
    reserved && evaluation.monitorId ? await evaluationExtensions.monitorLimit?.(evaluation, cycle) : undefined;
  return finish(
    evaluation,
    { status: 'FAILED', error: `scoring stopped: ${cause}` },
    reserved ?? 0,
    reserved ? { orgKey, monitorKey: monitor?.key } : undefined,
  );
}

/** Extra items and outcome handling contributed by monitors (set by the monitor engine). */
export interface EvaluationExtensions {
  /** The monitor's spend item and cap, when the evaluation belongs to a monitor. */
  monitorLimit?: (
    evaluation: Evaluation,
    cycle: string,
  ) => Promise<{ key: { pk: string; sk: string }; cap: number | null } | undefined>;
  /** Items written in the same transaction as a SUCCESS or FAILED result (a monitor's score and attempt records). */
  onSettled?: (evaluation: Evaluation) => Promise<TransactItem[]>;
  /** Called when credits could not be reserved. */
  onNoCredits?: (evaluation: Evaluation) => Promise<void>;
}
export const evaluationExtensions: EvaluationExtensions = {};

/**
 * Runs one PENDING evaluation exactly once in effect, however often its job is delivered:
 * credits are reserved once (marked on the evaluation), the result is written only while the
 * evaluation is still PENDING, and settling or releasing the credits happens in that same write.
 */
export async function runEvaluation(sessionId: string, evaluationId: string): Promise<Evaluation | undefined> {
  let evaluation = await getEvaluationItem(sessionId, evaluationId);
  if (evaluation?.status !== 'PENDING') return evaluation;
  const now = clock.now();
  const metric = await getVisibleMetric(evaluation.organizationId, evaluation.metricId);
  if (await waitsForVoice(metric, evaluation)) return evaluation;
  const { credits, model } = await chargeOf(metric);
  const { reserved, orgKey, cycle } = ledgerOf(evaluation, now);
  const monitor = evaluation.monitorId ? await evaluationExtensions.monitorLimit?.(evaluation, cycle) : undefined;

  if (credits > 0 && reserved === undefined) {
    const org = await getOrganization(evaluation.organizationId);
    const items: TransactItem[] = [
      reserveEvaluationCreditsWrite(sessionId, evaluationId, credits, cycle),
      reserveItem(orgKey, credits, org?.monthlyCredits ?? null),
      ...(monitor ? [reserveItem(monitor.key, credits, monitor.cap)] : []),
    ];
    try {
      await transact(items, (codes) =>
        codes[0] === 'ConditionalCheckFailed'
          ? new AlreadyHandled()
          : codes.some((c) => c === 'ConditionalCheckFailed')
            ? new NoCredits(codes[1] === 'ConditionalCheckFailed' ? 'organization' : 'monitor')
            : undefined,
      );
    } catch (error) {
      if (error instanceof AlreadyHandled) return getEvaluationItem(sessionId, evaluationId);
      if (error instanceof NoCredits) {
        if (evaluation.monitorId) {
          // Not scored and not a failed attempt: the scanner moves the monitor to CAPPED or NO_CREDITS.
          await evaluationExtensions.onNoCredits?.(evaluation);
          return finish(evaluation, { status: 'SKIPPED', error: error.message }, 0, undefined);
        }
        return finish(evaluation, { status: 'FAILED', error: error.message }, 0, undefined);
      }
      throw error;
    }
    evaluation = { ...evaluation, reservedCredits: credits } as Evaluation;
  }
  const session = await getSession(evaluation.organizationId, sessionId, { includeDeleted: true });
  const src = await loadSources(session);
  const outcome = await score(metric, src, evaluation.inferenceResultId, {
    organizationId: evaluation.organizationId,
    model: model?.providerModelId,
  });
  const charged = (evaluation as Reservation).reservedCredits ?? 0;
  return finish(evaluation, outcome, charged, charged > 0 ? { orgKey, monitorKey: monitor?.key } : undefined);
}

/**
 * A metric that reads the call's voice figures while they are being computed: the evaluation stays
 * PENDING (nothing reserved, nothing written) and the voice job queues it again once they are
 * stored. It asks for them too, in case no job will (a session recorded before figures existed).
 */
async function waitsForVoice(metric: StoredMetric, evaluation: Evaluation): Promise<boolean> {
  if (!metric.evaluationParams.includes('voice')) return false;
  const session = await getSession(evaluation.organizationId, evaluation.sessionId, { includeDeleted: true });
  const voice = voiceStateOf(session);
  if (voice.state !== 'pending') return false;
  await requestVoiceFigures({ id: session.id, recordingUri: voice.recordingUri });
  return true;
}

class AlreadyHandled extends Error {}
class NoCredits extends Error {
  constructor(who: 'organization' | 'monitor') {
    super(
      who === 'organization'
        ? 'no credits available: the organization has used its monthly credits'
        : "no credits available: the monitor's monthly credit cap is reached",
    );
  }
}

/** An evaluation as its outcome settles it (what `runEvaluation` writes; a run writes deterministic ones so at once). */
export function settledEvaluation(evaluation: Evaluation, outcome: Outcome, credits: number, now: string): Evaluation {
  return {
    ...evaluation,
    status: outcome.status,
    score: outcome.status === 'SUCCESS' ? outcome.score : null,
    reason: outcome.status === 'SUCCESS' ? outcome.reason : null,
    error: outcome.status === 'SUCCESS' ? null : outcome.error,
    creditsUsed: outcome.status === 'SUCCESS' ? credits : 0,
    evaluatedAt: now,
  };
}

async function finish(
  evaluation: Evaluation,
  outcome: Outcome,
  credits: number,
  ledger: { orgKey: { pk: string; sk: string }; monitorKey?: { pk: string; sk: string } } | undefined,
): Promise<Evaluation> {
  const done = settledEvaluation(evaluation, outcome, credits, clock.now().toISOString());
  const items: TransactItem[] = [settleEvaluationWrite(done)];
  if (ledger && credits > 0) {
    const move = outcome.status === 'SUCCESS' ? settleItem : releaseItem;
    items.push(move(ledger.orgKey, credits));
    if (ledger.monitorKey) items.push(move(ledger.monitorKey, credits));
  }
  if (outcome.status !== 'SKIPPED' && done.monitorId)
    items.push(...((await evaluationExtensions.onSettled?.(done)) ?? []));
  try {
    await transact(items, (codes) => (codes[0] === 'ConditionalCheckFailed' ? new AlreadyHandled() : undefined));
  } catch (error) {
    if (error instanceof AlreadyHandled) return (await getEvaluationItem(evaluation.sessionId, evaluation.id)) ?? done;
    throw error;
  }
  // Counted by the one write that settled the evaluation (a redelivery finds it handled).
  if (done.status === 'SUCCESS') countMetric(METRIC.EvaluationsSucceeded);
  if (done.status === 'FAILED') countMetric(METRIC.EvaluationsFailed);
  if (ledger && done.creditsUsed > 0) countMetric(METRIC.CreditsCharged, done.creditsUsed);
  return done;
}
