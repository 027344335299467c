import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { TransactItem } from './catalog.js';
import { doc, tableName } from './client.js';
import { keys } from './keys.js';
import { batchGet } from './query.js';

/**
 * A run's counters, sharded: progress and per-metric sums live on `shards` small items (their
 * own partitions), and each session adds to the one its id hashes to, in the transaction that
 * moves the session. No item takes more than 1/shards of a run's writes, however many sessions
 * run at once; a reader sums them. Each shard also holds what the fan-out sealed (how many
 * sessions hash to it, once they all exist) and whether the run was cancelled, which every step
 * reads with its session before its first call.
 */

/** Shards of a new run: 16 keep each below 1/16 of the run's writes (far under an item's 1,000 a second at RUN_CONCURRENCY 50). */
export const RUN_SHARDS = 16;

/** The shard of a session: FNV-1a of its id, so every job that touches it finds the same one. */
export function shardOf(sessionId: string, shards: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < sessionId.length; i++) {
    h ^= sessionId.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % shards;
}

/** Additive outcome counts of one metric over a run's evaluations. */
export interface MetricStat {
  n: number;
  sx: number;
  sxx: number;
  failed: number;
  skipped: number;
  /** Of the `n` scored, how many reached the run's threshold (runs that count passes: `_passCounted`). */
  np?: number;
}

export type Moves = Partial<Record<'started' | 'completed' | 'failed', number>>;
export type Outcome = { metricId: string; status: 'SUCCESS' | 'FAILED' | 'SKIPPED'; score?: number };

/**
 * Adds to one shard: sessions moved (`started`: left pending; `completed` / `failed`: counted)
 * and evaluation outcomes per metric, plus how many evaluations the session wrote for its plan entry.
 */
export function shardUpdate(
  runId: string,
  shard: number,
  moves: Moves,
  outcomes: Outcome[] = [],
  options: {
    evaluations?: { planIndex: number; count: number };
    traces?: { planIndex: number; count: number };
    unlessLast?: boolean;
    /** The run's threshold: a SUCCESS outcome at or above it also counts as a pass (`np`). */
    threshold?: number;
  } = {},
): TransactItem {
  const names: Record<string, string> = { '#entity': 'entity' };
  const values: Record<string, unknown> = { ':entity': 'RUNSHARD' };
  const adds: string[] = [];
  let n = 0;
  const add = (attribute: string, delta: number) => {
    if (!delta) return;
    const i = n++;
    names[`#a${i}`] = attribute;
    values[`:a${i}`] = delta;
    adds.push(`#a${i} :a${i}`);
  };
  for (const [field, delta] of Object.entries(moves)) add(field, delta ?? 0);
  // `left`: sessions of the shard not counted yet, once sealed (the seal adds how many hash to it).
  add('left', -((moves.completed ?? 0) + (moves.failed ?? 0)));
  for (const o of outcomes) {
    if (o.status === 'SUCCESS') {
      add(`n:${o.metricId}`, 1);
      add(`sx:${o.metricId}`, o.score ?? 0);
      add(`sxx:${o.metricId}`, (o.score ?? 0) ** 2);
      if (options.threshold !== undefined && typeof o.score === 'number' && o.score >= options.threshold)
        add(`np:${o.metricId}`, 1);
    } else if (o.status === 'FAILED') add(`failed:${o.metricId}`, 1);
    else add(`skipped:${o.metricId}`, 1);
  }
  if (options.evaluations) add(`evaluations:${options.evaluations.planIndex}`, options.evaluations.count);
  if (options.traces) add(`traces:${options.traces.planIndex}`, options.traces.count);
  const counted = (moves.completed ?? 0) + (moves.failed ?? 0);
  if (options.unlessLast) {
    names['#sealed'] = 'sealed';
    names['#left'] = 'left';
    values[':counted'] = counted;
  }
  return {
    Update: {
      TableName: tableName,
      Key: keys.runShard(runId, shard),
      UpdateExpression: `SET #entity = :entity${adds.length ? ` ADD ${adds.join(', ')}` : ''}`,
      // Refused exactly when these sessions are the sealed shard's last: the writer then knows to
      // write again without it and look at the whole run, and no other writer needs a read for that.
      ...(options.unlessLast ? { ConditionExpression: 'attribute_not_exists(#sealed) OR #left > :counted' } : {}),
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
}

/** Once the fan-out created every session: how many hash to the shard. */
export function shardSeal(runId: string, shard: number, expected: number): TransactItem {
  return {
    Update: {
      TableName: tableName,
      Key: keys.runShard(runId, shard),
      UpdateExpression: 'SET #entity = :entity, expected = :n, sealed = :t ADD #left :n',
      ExpressionAttributeNames: { '#entity': 'entity', '#left': 'left' },
      ExpressionAttributeValues: { ':entity': 'RUNSHARD', ':n': expected, ':t': true },
    },
  };
}

/** The run was cancelled: no session of the shard starts after this is written. */
export function shardCancel(runId: string, shard: number): TransactItem {
  return {
    Update: {
      TableName: tableName,
      Key: keys.runShard(runId, shard),
      UpdateExpression: 'SET #entity = :entity, cancelled = :t',
      ExpressionAttributeNames: { '#entity': 'entity' },
      ExpressionAttributeValues: { ':entity': 'RUNSHARD', ':t': true },
    },
  };
}

/** What one shard, or all of a run's, hold. */
export interface ShardSums {
  started: number;
  completed: number;
  failed: number;
  /** Sessions that hash to the shards (known once sealed). */
  expected: number;
  /** Every shard sealed: the fan-out created every session. */
  sealed: boolean;
  cancelled: boolean;
  stats: Record<string, MetricStat>;
  /** Evaluations written, by plan entry. */
  evaluations: Record<number, number>;
  /** Spans written, by plan entry. */
  traces: Record<number, number>;
}

const num = (v: unknown) => (typeof v === 'number' ? v : 0);

export function sumShards(items: (Record<string, unknown> | undefined)[]): ShardSums {
  const out: ShardSums = {
    started: 0,
    completed: 0,
    failed: 0,
    expected: 0,
    sealed: items.length > 0,
    cancelled: false,
    stats: {},
    evaluations: {},
    traces: {},
  };
  for (const item of items) {
    out.sealed &&= item?.sealed === true;
    if (!item) continue;
    out.cancelled ||= item.cancelled === true;
    out.started += num(item.started);
    out.completed += num(item.completed);
    out.failed += num(item.failed);
    out.expected += num(item.expected);
    for (const [name, value] of Object.entries(item)) {
      const at = name.indexOf(':');
      if (at < 0) continue;
      const field = name.slice(0, at);
      const id = name.slice(at + 1);
      if (field === 'evaluations' || field === 'traces') {
        out[field][Number(id)] = (out[field][Number(id)] ?? 0) + num(value);
        continue;
      }
      const stat = (out.stats[id] ??= { n: 0, sx: 0, sxx: 0, failed: 0, skipped: 0 });
      if (field === 'n' || field === 'sx' || field === 'sxx' || field === 'failed' || field === 'skipped')
        stat[field] += num(value);
      else if (field === 'np') stat.np = (stat.np ?? 0) + num(value);
    }
  }
  return out;
}

export const shardKeys = (runId: string, shards: number) =>
  Array.from({ length: shards }, (_, k) => keys.runShard(runId, k));

/** Every shard of a run, summed (one BatchGet, read consistently: a sum never goes backwards). */
export async function readShards(runId: string, shards: number): Promise<ShardSums> {
  const items = await batchGet(shardKeys(runId, shards), true);
  const byKey = new Map(items.map((i) => [String(i.pk), i]));
  return sumShards(shardKeys(runId, shards).map((k) => byKey.get(k.pk)));
}

/** One shard (the step that counted a session asks whether its shard is complete). */
export async function readShard(runId: string, shard: number): Promise<ShardSums> {
  const out = await doc.send(
    new GetCommand({ TableName: tableName, Key: keys.runShard(runId, shard), ConsistentRead: true }),
  );
  return sumShards([out.Item]);
}
