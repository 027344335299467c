import type { AuthContext } from '../../auth/context.js';
import { createRecord, transact, updateRecord, type TransactItem } from '../../db/catalog.js';
import { tableName } from '../../db/client.js';
import { keys } from '../../db/keys.js';
import {
  getVisibleMetric,
  linkDelete,
  linkPut,
  listMetricLinks,
  listOrgLinks,
  listOwnMetrics,
  listPredefinedMetrics,
  metricEntity,
  metricItem,
  type MetricLink,
} from '../../db/metrics.js';
import { getModel, listModels } from '../../db/models.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../../http/errors.js';
import { SCORING_FIELDS, type EvaluatorModel, type Metric, type MetricCreate, type MetricListQuery, type MetricUpdate, type StoredMetric } from '../../schemas/metrics.js';
import { clock } from '../common/clock.js';
import { newId } from '../common/ids.js';
import { patchOf } from '../common/immutable.js';
import { anyOf, applyList, containsIgnoreCase, intersects, type Page } from '../common/list.js';
import { scoringOf } from './check-rules.js';
import { checkModelSelectable, checkSourceRequirements, deriveDates, isMonitorable } from './metric-rules.js';
import { getLiveSpecifications } from './specification-refs.js';

/** The readable metric: derived dates, and the caller's specification links. */
export function present(metric: StoredMetric, models: Map<string, EvaluatorModel>, links: MetricLink[], now: Date): Metric {
  const { ownLegacyAt, ownDisabledAt, ...rest } = metric;
  const model = metric.evaluatorModelName ? models.get(metric.evaluatorModelName) : undefined;
  return {
    ...rest,
    check: metric.check ?? null,
    specificationIds: links.filter((l) => l.metricId === metric.id).map((l) => l.specificationId).sort(),
    ...deriveDates({ ownLegacyAt, ownDisabledAt }, model, now),
  };
}

async function modelMap(): Promise<Map<string, EvaluatorModel>> {
  return new Map((await listModels()).map((m) => [m.name, m]));
}

/** One visible metric as the caller sees it (deleted ones included, with deletedAt). */
export async function getMetric(auth: AuthContext, id: string): Promise<Metric> {
  const stored = await getVisibleMetric(auth.organizationId, id);
  const model = stored.evaluatorModelName ? await getModel(stored.evaluatorModelName) : undefined;
  const links = await listMetricLinks(auth.organizationId, id);
  return present(stored, new Map(model ? [[model.name, model]] : []), links, clock.now());
}

/** Every live metric visible to an organization (own and predefined), presented. */
export async function visibleMetrics(orgId: string, options: { own?: boolean; predefined?: boolean } = {}): Promise<Metric[]> {
  const [own, predefined, models, links] = await Promise.all([
    options.own === false ? [] : listOwnMetrics(orgId),
    options.predefined === false ? [] : listPredefinedMetrics(),
    modelMap(),
    listOrgLinks(orgId),
  ]);
  const now = clock.now();
  return [...own, ...predefined].filter((m) => !m.deletedAt).map((m) => present(m, models, links, now));
}

export async function listMetrics(auth: AuthContext, query: MetricListQuery): Promise<Page<Metric>> {
  const links = await listOrgLinks(auth.organizationId);
  const productsOf = new Map<string, Set<string>>();
  for (const l of links) (productsOf.get(l.metricId) ?? productsOf.set(l.metricId, new Set()).get(l.metricId)!).add(l.productId);
  const metrics = await visibleMetrics(auth.organizationId, { own: query.includeOwned !== false, predefined: query.includeDefault !== false });
  const now = clock.now();
  return applyList(metrics, query, {
    sortable: ['createdAt', 'name', 'source'],
    filters: [
      ...(query.includeLegacy ? [] : [(m: Metric) => m.legacyAt === null]),
      ...(query.monitorable === undefined ? [] : [(m: Metric) => isMonitorable(m, now) === query.monitorable]),
      ...anyOf<Metric>(query.organizationIds, (m) => m.organizationId),
      ...anyOf<Metric>(query.sources, (m) => m.source),
      ...intersects<Metric>(query.tags, (m) => m.tags),
      ...intersects<Metric>(query.specificationIds, (m) => m.specificationIds),
      ...intersects<Metric>(query.userGroupIds, (m) => m.userGroupIds),
      ...intersects<Metric>(query.productIds, (m) => [...(productsOf.get(m.id) ?? [])]),
      ...(query.description ? [(m: Metric) => containsIgnoreCase(m.description, query.description!)] : []),
    ],
  });
}

/**
 * POST /metrics. With parentMetricId the metric is a revision: it joins the parent's family and,
 * in the same transaction, an active parent of the caller's organization becomes legacy.
 */
export async function createMetric(auth: AuthContext, input: MetricCreate): Promise<Metric> {
  checkSourceRequirements(input);
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
  if ((input.specificationIds?.length ?? 0) > 90) throw new ValidationError('specificationIds must have at most 90 items on create; link more afterwards');
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
    linkPut({ metricId: metric.id, specificationId: s.id, productId: s.productId, organizationId: auth.organizationId }),
  );
  // A predefined parent belongs to the platform: organizations cannot change it (see docs/decisions.md).
  if (parent && parent.organizationId === auth.organizationId) {
    extra.push({
      Update: {
        TableName: tableName,
        Key: keys.catalog(auth.organizationId, 'METRIC', parent.id),
        UpdateExpression: 'SET ownLegacyAt = if_not_exists(ownLegacyAt, :now)',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(deletedAt)',
        ExpressionAttributeValues: { ':now': metric.createdAt },
      },
    });
  }
  await createRecord(metricEntity, metric as StoredMetric & { organizationId: string }, extra, metricItem(metric));
  const links = specs.map((s) => ({ metricId: metric.id, specificationId: s.id, productId: s.productId, organizationId: auth.organizationId }));
  return present(metric, new Map(model ? [[model.name, model]] : []), links, now);
}

async function ownMetricForWrite(auth: AuthContext, id: string): Promise<StoredMetric> {
  const metric = await getVisibleMetric(auth.organizationId, id);
  if (metric.organizationId !== auth.organizationId) throw new ForbiddenError(`metric ${id} is predefined; organizations cannot change or delete it`);
  if (metric.deletedAt) throw new NotFoundError(`metric ${id} not found`);
  return metric;
}

export async function updateMetric(auth: AuthContext, id: string, body: MetricUpdate): Promise<Metric> {
  for (const field of SCORING_FIELDS) {
    if (field in body) throw new ValidationError(`${field} cannot be changed by PATCH; create a revision with parentMetricId instead`);
  }
  await ownMetricForWrite(auth, id);
  const { set, remove } = patchOf(body, ['name', 'description', 'tags', 'documentationUrl', 'userGroupIds']);
  for (const field of remove) set[field] = null;
  await updateRecord(metricEntity, auth.organizationId, id, set);
  return getMetric(auth, id);
}

/** Soft delete; the metric's specification links go first (in chunks), the metric last. */
export async function deleteMetric(auth: AuthContext, id: string): Promise<{ id: string; deletedAt: string }> {
  await ownMetricForWrite(auth, id);
  const links = await listMetricLinks(auth.organizationId, id);
  for (let i = 0; i < links.length; i += 100) {
    await transact(links.slice(i, i + 100).map((l) => linkDelete(auth.organizationId, l.metricId, l.specificationId)));
  }
  const deletedAt = clock.now().toISOString();
  await updateRecord(metricEntity, auth.organizationId, id, { deletedAt });
  return { id, deletedAt };
}
