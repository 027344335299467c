import type { AuthContext } from '../../auth/context.js';
import { getRecord } from '../../db/catalog.js';
import { readSpend } from '../../db/credits.js';
import { keys } from '../../db/keys.js';
import { monitorRange, newestOf } from '../../db/monitors.js';
import { getOrganization } from '../../db/organizations.js';
import type { Monitor } from '../../schemas/monitors.js';
import { clock } from '../common/clock.js';
import { monitorEntity } from '../common/entities.js';
import { cycleOf, cycleStart } from '../accounts/organization.js';
import { loadFamily } from './families.js';
import { windowDays } from './rules.js';
import { emptySums, mergeSums, scorePoint, type ScorePoint, type Sums } from './statistics.js';

export interface MonitorResults {
  monitorId: string;
  range: { from: string; to: string; bucketDays: number };
  metrics: { metricGroupId: string; name: string; headline: ScorePoint; buckets: (ScorePoint & { bucket: string })[] }[];
  worstMetric: (ScorePoint & { metricGroupId: string; name: string }) | null;
  markers: {
    metricRevisions: { metricGroupId: string; name: string; metricId: string; at: string }[];
    samplingChanges: { at: string; samplingPercentage: number }[];
  };
  spend: { spentCredits: number; pendingCredits: number; capCredits: number | null; cycleStart: string | null };
  sessions: {
    scored: { sessionId: string; evaluatedAt: string; settledAtTurn: number | null; description: string }[];
    waiting: { sessionId: string; lastTurnAt: string; minutesSinceLastTurn: number; description: string }[];
  };
}

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
 * Query), each bound family, its sampling markers, the cycle's spend, and the two bounded lists:
 * its cost does not grow with the number of sessions.
 */
export async function monitorResults(auth: AuthContext, id: string, days = 7): Promise<MonitorResults> {
  const monitor = await getRecord<Monitor>(monitorEntity, auth.organizationId, id);
  const now = clock.now();
  const dayList = windowDays(now, days);
  const from = `${dayList[0]}T00:00:00.000Z`;
  const [bucketItems, samplingItems, scoredItems, waitingItems, spendItem, org, families] = await Promise.all([
    monitorRange(id, `BUCKET#${dayList[0]}`, `BUCKET#${dayList[dayList.length - 1]}~`),
    monitorRange(id, `SAMPLING#${from}`, `SAMPLING#${now.toISOString()}~`),
    newestOf(keys.monitorScoredPartition(id), 200),
    newestOf(keys.monitorWaitingPartition(id), 100),
    readSpend(keys.monitorSpend(id, cycleOf(now))),
    getOrganization(auth.organizationId),
    Promise.all(monitor.metricGroupIds.map((g) => loadFamily(auth.organizationId, g, now))),
  ]);
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
  scoredMetrics.sort((a, b) => a.headline.score! - b.headline.score! || a.name.localeCompare(b.name, 'en') || a.metricGroupId.localeCompare(b.metricGroupId));
  const worst = scoredMetrics[0];
  return {
    monitorId: id,
    range: { from, to: now.toISOString(), bucketDays: 1 },
    metrics,
    worstMetric: worst ? { ...worst.headline, metricGroupId: worst.metricGroupId, name: worst.name } : null,
    markers: {
      metricRevisions: families
        .flatMap((f) => f.members.filter((m) => m.parentMetricId !== null && m.createdAt >= from).map((m) => ({ metricGroupId: f.groupId, name: m.name, metricId: m.id, at: m.createdAt })))
        .sort((a, b) => a.at.localeCompare(b.at)),
      samplingChanges: samplingItems.map((i) => ({ at: String(i.at), samplingPercentage: Number(i.samplingPercentage) })),
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
