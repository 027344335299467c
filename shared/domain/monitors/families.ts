import { listFamilies, listFamily } from '../../db/metrics.js';
import { getModels, listModels } from '../../db/models.js';
import { PLATFORM_ORG } from '../../db/keys.js';
import type { StoredMetric } from '../../schemas/metrics.js';
import { present } from '../metrics/metrics.js';
import { isDisabled } from '../metrics/metric-rules.js';
import type { EvaluatorModel, Metric } from '../../schemas/metrics.js';

export interface Family {
  groupId: string;
  /** Members visible to the organization (its own and predefined), oldest first. */
  members: Metric[];
  /** The newest member that is neither deleted nor disabled. */
  current: Metric | undefined;
  /** Members of other organizations only (the family is not the caller's). */
  foreignOnly: boolean;
}

/** Reads a metric family as one organization sees it. */
export async function loadFamily(orgId: string, groupId: string, now: Date): Promise<Family> {
  const [all, models] = await Promise.all([listFamily(groupId), listModels()]);
  return familyOf(orgId, groupId, all, new Map(models.map((m) => [m.name, m])), now);
}

/**
 * Several families as one organization sees them, in the order asked: their members in one
 * request, then the evaluator models they name in one more (none when no member names one).
 */
export async function loadFamilies(orgId: string, groupIds: string[], now: Date): Promise<Family[]> {
  const byGroup = await listFamilies(groupIds);
  const names = [
    ...new Set([...byGroup.values()].flat().flatMap((m) => (m.evaluatorModelName ? [m.evaluatorModelName] : []))),
  ];
  const modelMap = new Map((await getModels(names)).map((m) => [m.name, m]));
  return groupIds.map((g) => familyOf(orgId, g, byGroup.get(g) ?? [], modelMap, now));
}

function familyOf(
  orgId: string,
  groupId: string,
  all: StoredMetric[],
  modelMap: Map<string, EvaluatorModel>,
  now: Date,
): Family {
  const visible = all.filter(
    (m: StoredMetric) => m.organizationId === orgId || m.organizationId === null || m.organizationId === PLATFORM_ORG,
  );
  const members = visible
    .map((m) => present(m, modelMap, [], now))
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  const live = members.filter((m) => !m.deletedAt && !isDisabled(m, now));
  return { groupId, members, current: live[live.length - 1], foreignOnly: members.length === 0 && all.length > 0 };
}
