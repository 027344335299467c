import { listFamily } from '../../db/metrics.js';
import { listModels } from '../../db/models.js';
import { PLATFORM_ORG } from '../../db/keys.js';
import type { Metric, StoredMetric } from '../../schemas/metrics.js';
import { present } from '../metrics/metrics.js';
import { isDisabled } from '../metrics/metric-rules.js';

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
  const modelMap = new Map(models.map((m) => [m.name, m]));
  const visible = all.filter((m: StoredMetric) => m.organizationId === orgId || m.organizationId === null || m.organizationId === PLATFORM_ORG);
  const members = visible.map((m) => present(m, modelMap, [], now)).sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  const live = members.filter((m) => !m.deletedAt && !isDisabled(m, now));
  return { groupId, members, current: live[live.length - 1], foreignOnly: members.length === 0 && all.length > 0 };
}
