import { deleteDirtyMarkerIfUntouched, dirtyMarkersOfShard, MONITOR_SHARDS, putBucket } from '../../db/monitors.js';
import { queryPrefix } from '../../db/query.js';
import { clock } from '../common/clock.js';
import { addScore, emptySums, type Sums } from './statistics.js';
import { logger, withLogKeys } from '../../observability/logger.js';

/** Recomputes one daily bucket from that day's scores and overwrites it. */
export async function recomputeBucket(monitorId: string, day: string, groupId: string): Promise<Sums> {
  const scores = await queryPrefix(`MONITOR#${monitorId}`, `SCORE#${day}#${groupId}#`, { consistent: true });
  const sums = scores.reduce<Sums>((s, i) => addScore(s, Number(i.score), Number(i.weight)), emptySums());
  await putBucket(monitorId, day, groupId, sums, clock.now().toISOString());
  return sums;
}

/**
 * The aggregator (every 5 minutes): every bucket touched since its last run (a dirty marker per
 * monitor × family × day, written with each score) is recomputed from scores and overwritten, so a
 * second run changes nothing. A marker touched again meanwhile stays for the next run.
 */
export async function runAggregator(): Promise<{ buckets: number }> {
  let buckets = 0;
  for (let shard = 0; shard < MONITOR_SHARDS; shard++) {
    for (const marker of await dirtyMarkersOfShard(shard)) {
      const [monitorId, day, groupId] = [String(marker.monitorId), String(marker.day), String(marker.groupId)];
      await withLogKeys({ monitorId }, async () => {
        const sums = await recomputeBucket(monitorId, day, groupId);
        logger.debug('monitor bucket recomputed', { day, groupId, scores: sums.n });
      });
      buckets++;
      // false: touched again meanwhile, so it stays for the next run
      await deleteDirtyMarkerIfUntouched({ pk: String(marker.pk), sk: String(marker.sk), touchedAt: marker.touchedAt });
    }
  }
  return { buckets };
}
