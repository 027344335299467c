import { ValidationError } from '../../errors.js';
import type { MetricCreate, StoredMetric } from '../../schemas/metrics.js';
import { AI_JUDGED_SOURCES, TEST_CASE_ONLY_PARAMS } from '../evaluation/params.js';
import type { EvaluatorModel, Metric } from '../../schemas/metrics.js';

/** Pure metric rules: per-source requirements, derived dates, monitorability. */

function earliest(...dates: (string | null | undefined)[]): string | null {
  const present = dates.filter((d): d is string => typeof d === 'string' && d.length > 0);
  if (present.length === 0) return null;
  return present.reduce((a, b) => (Date.parse(a) <= Date.parse(b) ? a : b));
}

/**
 * legacyAt: earliest of the metric's own legacy date and its model's unselectableAt, reported only
 * once it has passed (never a future date). disabledAt: earliest of the metric's own disabled date
 * and its model's disabledAt.
 */
export function deriveDates(
  metric: Pick<StoredMetric, 'ownLegacyAt' | 'ownDisabledAt'>,
  model: Pick<EvaluatorModel, 'unselectableAt' | 'disabledAt'> | undefined,
  now: Date,
): { legacyAt: string | null; disabledAt: string | null } {
  const legacy = earliest(metric.ownLegacyAt, model?.unselectableAt);
  return {
    legacyAt: legacy !== null && Date.parse(legacy) <= now.getTime() ? legacy : null,
    disabledAt: earliest(metric.ownDisabledAt, model?.disabledAt),
  };
}

export function isDisabled(metric: Pick<Metric, 'disabledAt'>, now: Date): boolean {
  return metric.disabledAt !== null && Date.parse(metric.disabledAt) <= now.getTime();
}

export function isLegacy(metric: Pick<Metric, 'legacyAt'>): boolean {
  return metric.legacyAt !== null;
}

/** Whether a monitor may bind this metric. */
export function isMonitorable(metric: Metric, now: Date): boolean {
  return (
    !metric.deletedAt &&
    !isDisabled(metric, now) &&
    !isLegacy(metric) &&
    metric.source !== 'HUMAN_EVALUATION' &&
    metric.source !== 'SELF_HOSTED' &&
    !metric.evaluationParams.some((p) => TEST_CASE_ONLY_PARAMS.includes(p))
  );
}

/** Why a metric is not monitorable, for 400 messages. */
export function whyNotMonitorable(metric: Metric, now: Date): string | undefined {
  if (metric.deletedAt) return 'it is deleted';
  if (isDisabled(metric, now)) return 'it is disabled';
  if (isLegacy(metric)) return 'it is legacy';
  if (metric.source === 'HUMAN_EVALUATION' || metric.source === 'SELF_HOSTED')
    return `its source ${metric.source} is not scored by the platform`;
  const testOnly = metric.evaluationParams.filter((p) => TEST_CASE_ONLY_PARAMS.includes(p));
  if (testOnly.length) return `it needs test-case-only parameters (${testOnly.join(', ')})`;
  return undefined;
}

/** Per-source requirements of POST /metrics. */
export function checkSourceRequirements(
  input: Pick<MetricCreate, 'source' | 'judgePrompt' | 'evaluatorModelName' | 'check'>,
): void {
  const { source } = input;
  if (source === 'FULL_PROMPT') {
    throw new ValidationError('source FULL_PROMPT is deprecated for creation; use PARTIAL_PROMPT');
  }
  if (source === 'DETERMINISTIC') {
    // An organization's deterministic metric is a check; the predefined ones are the platform's.
    if (!input.check) throw new ValidationError('check is required when source is DETERMINISTIC');
    if (input.judgePrompt) throw new ValidationError('judgePrompt must not be set when source is DETERMINISTIC');
    if (input.evaluatorModelName)
      throw new ValidationError('evaluatorModelName must not be set when source is DETERMINISTIC');
    return;
  }
  if (input.check)
    throw new ValidationError(`check must not be set when source is ${source}; a check is a DETERMINISTIC metric`);
  if (AI_JUDGED_SOURCES.includes(source)) {
    if (!input.judgePrompt) throw new ValidationError(`judgePrompt is required when source is ${source}`);
    if (!input.evaluatorModelName) throw new ValidationError(`evaluatorModelName is required when source is ${source}`);
    return;
  }
  if (source === 'HUMAN_EVALUATION') {
    if (!input.judgePrompt) throw new ValidationError('judgePrompt is required when source is HUMAN_EVALUATION');
    if (input.evaluatorModelName)
      throw new ValidationError('evaluatorModelName must not be set when source is HUMAN_EVALUATION');
    return;
  }
  // SELF_HOSTED: scored by the customer, so neither a prompt nor a model.
  if (input.judgePrompt) throw new ValidationError('judgePrompt must not be set when source is SELF_HOSTED');
  if (input.evaluatorModelName)
    throw new ValidationError('evaluatorModelName must not be set when source is SELF_HOSTED');
}

/** A model can be chosen for a new metric only before its unselectable and disabled dates. */
export function checkModelSelectable(model: EvaluatorModel | undefined, name: string, now: Date): void {
  if (!model) throw new ValidationError(`evaluatorModelName ${name} is not a known evaluator model`);
  if (model.disabledAt && Date.parse(model.disabledAt) <= now.getTime()) {
    throw new ValidationError(`evaluatorModelName ${name} is disabled`);
  }
  if (model.unselectableAt && Date.parse(model.unselectableAt) <= now.getTime()) {
    throw new ValidationError(`evaluatorModelName ${name} can no longer be selected for new metrics`);
  }
}
