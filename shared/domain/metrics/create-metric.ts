import type { AuthContext } from '../../auth/context.js';
import { createRecord, type TransactItem } from '../../db/catalog.js';
import { getVisibleMetric, linkPut, markOwnLegacyWrite, metricEntity, metricItem } from '../../db/metrics.js';
import { getModel } from '../../db/models.js';
import { NotFoundError, ValidationError } from '../../errors.js';
import type { MetricCreate, StoredMetric } from '../../schemas/metrics.js';
import { clock } from '../common/clock.js';
import { newId } from '../common/ids.js';
import { loadCheckAnalysers, scoringOf } from './check-rules.js';
import { checkModelSelectable, checkSourceRequirements } from './metric-rules.js';
import { present } from './metrics.js';
import { getLiveSpecifications } from './specification-refs.js';
import type { EvaluatorModel, Metric } from '../../schemas/metrics.js';

// Its own module: only POST /metrics validates checks (regex safety, user JSON schemas), so the
// read, update and delete routes do not bundle ajv and the regex analyser.

/**
 * POST /metrics. With parentMetricId the metric is a revision: it joins the parent's family and,
 * in the same transaction, an active parent of the caller's organization becomes legacy.
 */
export async function createMetric(auth: AuthContext, input: MetricCreate): Promise<Metric> {
  checkSourceRequirements(input);
  await loadCheckAnalysers(input.check);
  const { check, evaluationParams } = scoringOf(input);
  const now = clock.now();
  let model: EvaluatorModel | undefined;
  if (input.evaluatorModelName) {
    model = await getModel(input.evaluatorModelName);
    checkModelSelectable(model, input.evaluatorModelName, now);
  }
  let parent: StoredMetric | undefined;
  if (input.parentMetricId) {
    parent = await getVisibleMetric(auth.organizationId, input.parentMetricId);
    if (parent.deletedAt) throw new NotFoundError(`metric ${input.parentMetricId} not found`);
  }
  if ((input.specificationIds?.length ?? 0) > 90)
    throw new ValidationError('specificationIds must have at most 90 items on create; link more afterwards');
  const specs = await getLiveSpecifications(auth, input.specificationIds ?? [], 'specificationIds');

  const metric: StoredMetric = {
    id: newId('metric'),
    metricGroupId: parent?.metricGroupId ?? newId('metricGroup'),
    parentMetricId: parent?.id ?? null,
    organizationId: auth.organizationId,
    userId: auth.userId,
    name: input.name,
    evaluationParams,
    source: input.source,
    ...(check ? { check } : {}),
    judgePrompt: input.judgePrompt ?? null,
    tags: input.tags ?? [],
    description: input.description ?? '',
    documentationUrl: input.documentationUrl ?? null,
    evaluatorModelName: input.evaluatorModelName ?? null,
    areEvalParamsTop: input.areEvalParamsTop ?? false,
    isBeingOptimized: input.isBeingOptimized ?? false,
    userGroupIds: input.userGroupIds ?? [],
    createdAt: now.toISOString(),
  };
  const extra: TransactItem[] = specs.map((s) =>
    linkPut({
      metricId: metric.id,
      specificationId: s.id,
      productId: s.productId,
      organizationId: auth.organizationId,
    }),
  );
  // A predefined parent belongs to the platform: organizations cannot change it (see docs/decisions.md).
  if (parent && parent.organizationId === auth.organizationId) {
    extra.push(markOwnLegacyWrite(auth.organizationId, parent.id, metric.createdAt));
  }
  await createRecord(metricEntity, metric as StoredMetric & { organizationId: string }, extra, metricItem(metric));
  const links = specs.map((s) => ({
    metricId: metric.id,
    specificationId: s.id,
    productId: s.productId,
    organizationId: auth.organizationId,
  }));
  return present(metric, new Map(model ? [[model.name, model]] : []), links, now);
}
