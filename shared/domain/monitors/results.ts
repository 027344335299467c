import type { AuthContext } from '../../auth/context.js';
import { getRecord } from '../../db/catalog.js';
import { spendOf } from '../../db/credits.js';
import { keys, type Key } from '../../db/keys.js';
import { monitorRange, newestOf } from '../../db/monitors.js';
import { batchGet } from '../../db/query.js';
import { toRecord } from '../../db/records.js';
import { clock } from '../common/clock.js';
import { monitorEntity } from '../common/entities.js';
import { cycleOf, cycleStart, type Organization } from '../accounts/organization.js';
import { loadFamilies } from './families.js';
import { windowDays } from './rules.js';
import { emptySums, mergeSums, scorePoint, type Sums } from './statistics.js';
import type { Static } from '@sinclair/typebox';
import type { MonitorResultsRecord } from '../../schemas/monitors.js';
import type { Monitor } from '../../schemas/monitors.js';

/** As the API answers it: the type of its response schema. */
export type MonitorResults = Static<typeof MonitorResultsRecord>;

const sumsOf = (i: Record<string, unknown>): Sums => ({
  n: Number(i.n ?? 0),
  sw: Number(i.sw ?? 0),
  swx: Number(i.swx ?? 0),
  sw2: Number(i.sw2 ?? 0),
  sw2x: Number(i.sw2x ?? 0),
  sw2x2: Number(i.sw2x2 ?? 0),
});

/**
 * GET /monitors/{id}/results?days=N. Reads the monitor, its daily buckets of the window (one
 * Query), the bound families (one request), its sampling markers, the cycle's spend, and the two
 * bounded lists: its cost does not grow with the number of sessions, nor its requests with the
 * number of bound metrics.
 */
export async function monitorResults(auth: AuthContext, id: string, days = 7): Promise<MonitorResults> {
  const now = clock.now();
  const dayList = windowDays(now, days);
  const from = `${dayList[0]}T00:00:00.000Z`;
  // Six requests (seven when a bound metric names an evaluator model): the monitor, its spend and
  // the organization in one BatchGet, the four ranges alongside it, then the families in one.
  const monitorKey = keys.catalog(auth.organizationId, monitorEntity.type, id);
  const spendKey = keys.monitorSpend(id, cycleOf(now));
  const orgKey = keys.organization(auth.organizationId);
  const [items, bucketItems, samplingItems, scoredItems, waitingItems] = await Promise.all([
    batchGet([monitorKey, spendKey, orgKey], true),
    monitorRange(id, `BUCKET#${dayList[0]}`, `BUCKET#${dayList[dayList.length - 1]}~`),
    monitorRange(id, `SAMPLING#${from}`, `SAMPLING#${now.toISOString()}~`),
    newestOf(keys.monitorScoredPartition(id), 200),
    newestOf(keys.monitorWaitingPartition(id), 100),
  ]);
  const itemAt = (key: Key) => items.find((i) => i.pk === key.pk && i.sk === key.sk);
  const monitorItem = itemAt(monitorKey);
  // Absent or deleted: the single read answers 404 (or 403 for another organization's monitor).
  const monitor =
    monitorItem && !monitorItem.deletedAt
      ? toRecord<Monitor>(monitorItem)
      : await getRecord<Monitor>(monitorEntity, auth.organizationId, id);
  const spendItem = spendOf(itemAt(spendKey));
  const orgItem = itemAt(orgKey);
  const org = orgItem ? toRecord<Organization>(orgItem) : undefined;
  const families = await loadFamilies(auth.organizationId, monitor.metricGroupIds, now);
  const buckets = new Map(bucketItems.map((i) => [`${String(i.day)}#${String(i.groupId)}`, sumsOf(i)]));
  const metrics = families.map((family) => {
    const named = family.current ?? family.members[family.members.length - 1];
    const series = dayList.map((day) => buckets.get(`${day}#${family.groupId}`) ?? emptySums());
    return {
      metricGroupId: family.groupId,
      name: named?.name ?? family.groupId,
      headline: scorePoint(mergeSums(...series)),
      buckets: series.map((s, i) => ({ ...scorePoint(s), bucket: `${dayList[i]}T00:00:00.000Z` })),
    };
  });
  const scoredMetrics = metrics.filter((m) => m.headline.score !== null);
  scoredMetrics.sort(
    (a, b) =>
      a.headline.score! - b.headline.score! ||
      a.name.localeCompare(b.name, 'en') ||
      a.metricGroupId.localeCompare(b.metricGroupId),
  );
  const worst = scoredMetrics[0];
  return {
    monitorId: id,
    range: { from, to: now.toISOString(), bucketDays: 1 },
    metrics,
    worstMetric: worst ? { ...worst.headline, metricGroupId: worst.metricGroupId, name: worst.name } : null,
    markers: {
      metricRevisions: families
        .flatMap((f) =>
          f.members
            .filter((m) => m.parentMetricId !== null && m.createdAt >= from)
            .map((m) => ({ metricGroupId: f.groupId, name: m.name, metricId: m.id, at: m.createdAt })),
        )
        .sort((a, b) => a.at.localeCompare(b.at)),
      samplingChanges: samplingItems.map((i) => ({
        at: String(i.at),
        samplingPercentage: Number(i.samplingPercentage),
      })),
    },
    spend: {
      spentCredits: spendItem.spentCredits,
      pendingCredits: spendItem.pendingCredits,
      capCredits: monitor.monthlyCreditCap,
      cycleStart: org?.monthlyCredits === null ? null : cycleStart(now),
    },
    sessions: {
      scored: scoredItems.map((i) => ({
        sessionId: String(i.sessionId),
        evaluatedAt: String(i.evaluatedAt),
        settledAtTurn: i.settledAtTurn === null || i.settledAtTurn === undefined ? null : Number(i.settledAtTurn),
        description: String(i.description ?? ''),
      })),
      waiting: waitingItems.map((i) => ({
        sessionId: String(i.sessionId),
        lastTurnAt: String(i.lastTurnAt),
        minutesSinceLastTurn: Math.max(0, Math.floor((now.getTime() - Date.parse(String(i.lastTurnAt))) / 60_000)),
        description: String(i.description ?? ''),
      })),
    },
  };
}
