import type { AuthContext } from '../../auth/context.js';
import { transact, updateRecord } from '../../db/catalog.js';
import {
  getVisibleMetric,
  linkDelete,
  listMetricLinks,
  listOrgLinks,
  listOwnMetrics,
  listPredefinedMetrics,
  metricEntity,
  type MetricLink,
} from '../../db/metrics.js';
import { getModel, listModels } from '../../db/models.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../../errors.js';
import { SCORING_FIELDS, type MetricListQuery, type MetricUpdate, type StoredMetric } from '../../schemas/metrics.js';
import { clock } from '../common/clock.js';
import { patchOf } from '../common/immutable.js';
import { anyOf, applyList, containsIgnoreCase, intersects, type Page } from '../common/list.js';
import { deriveDates, isMonitorable } from './metric-rules.js';
import type { EvaluatorModel, Metric } from '../../schemas/metrics.js';

/** The readable metric: derived dates, and the caller's specification links. */
export function present(
  metric: StoredMetric,
  models: Map<string, EvaluatorModel>,
  links: MetricLink[],
  now: Date,
): Metric {
  const { ownLegacyAt, ownDisabledAt, ...rest } = metric;
  const model = metric.evaluatorModelName ? models.get(metric.evaluatorModelName) : undefined;
  return {
    ...rest,
    check: metric.check ?? null,
    specificationIds: links
      .filter((l) => l.metricId === metric.id)
      .map((l) => l.specificationId)
      .sort(),
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
export async function visibleMetrics(
  orgId: string,
  options: { own?: boolean; predefined?: boolean } = {},
): Promise<Metric[]> {
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
  for (const l of links)
    (productsOf.get(l.metricId) ?? productsOf.set(l.metricId, new Set()).get(l.metricId)!).add(l.productId);
  const metrics = await visibleMetrics(auth.organizationId, {
    own: query.includeOwned !== false,
    predefined: query.includeDefault !== false,
  });
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

async function ownMetricForWrite(auth: AuthContext, id: string): Promise<StoredMetric> {
  const metric = await getVisibleMetric(auth.organizationId, id);
  if (metric.organizationId !== auth.organizationId)
    throw new ForbiddenError(`metric ${id} is predefined; organizations cannot change or delete it`);
  if (metric.deletedAt) throw new NotFoundError(`metric ${id} not found`);
  return metric;
}

export async function updateMetric(auth: AuthContext, id: string, body: MetricUpdate): Promise<Metric> {
  for (const field of SCORING_FIELDS) {
    if (field in body)
      throw new ValidationError(`${field} cannot be changed by PATCH; create a revision with parentMetricId instead`);
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
