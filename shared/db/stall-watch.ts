import { createHash } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { doc, tableName } from './client.js';
import { isConditionalCheckFailed } from './errors.js';
import { keys, type Key } from './keys.js';
import { queryIndex } from './query.js';

/**
 * The stall watchdog's records: the sparse indexes of work not yet finished (gsi2 entries on a run
 * item, written when it is created, and on a test item, written when a generation starts; each
 * removed by the watchdog once it sees the work ended) and, per run or test, what the watchdog saw
 * (`RUNWATCH#<run>`, `GENWATCH#<test>`).
 */

/** Shards of each index of work not yet finished: the watchdog Queries every one. */
export const ACTIVE_SHARDS = 4;
/** The shard of a run or test on its index: from its id, so every writer finds the same one. */
export const activeShardOf = (id: string): number => createHash('sha256').update(id).digest()[0]! % ACTIVE_SHARDS;

/** A watch record outlives its last write by this long (a backstop: the watchdog deletes it once the work ended). */
const WATCH_TTL_DAYS = 7;

/** A run on the index of runs not yet finished. */
export interface ActiveRun {
  organizationId: string;
  runId: string;
}

/** A test on the index of generating tests. */
export interface GeneratingEntry {
  organizationId: string;
  testId: string;
}

async function indexed(partition: (shard: number) => string): Promise<{ organizationId: string; id: string }[]> {
  const out: { organizationId: string; id: string }[] = [];
  for (let shard = 0; shard < ACTIVE_SHARDS; shard++)
    for (const item of await queryIndex('gsi2', partition(shard)))
      out.push({ organizationId: String(item.organizationId), id: String(item.id) });
  return out;
}

/** Every run on the index, shard by shard (Queries of the sparse index, never a Scan). */
export async function activeRuns(): Promise<ActiveRun[]> {
  return (await indexed(keys.activeRunPartition)).map((e) => ({ organizationId: e.organizationId, runId: e.id }));
}

/** Every test on the index of generating tests, shard by shard. */
export async function generatingTests(): Promise<GeneratingEntry[]> {
  return (await indexed(keys.generatingTestPartition)).map((e) => ({ organizationId: e.organizationId, testId: e.id }));
}

/** Takes a finished run off the index and forgets what the watchdog saw of it. */
export async function retireActiveRun(orgId: string, runId: string): Promise<void> {
  await doc
    .send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.catalog(orgId, 'RUN', runId),
        UpdateExpression: 'REMOVE gsi2pk, gsi2sk',
        ConditionExpression: 'attribute_exists(pk)',
      }),
    )
    .catch((error: unknown) => (isConditionalCheckFailed(error) ? undefined : Promise.reject(error)));
  await doc.send(new DeleteCommand({ TableName: tableName, Key: keys.runWatch(runId) }));
}

/**
 * Takes a test whose generation ended off the index, unless it is generating again (an extend or
 * augment started since it was read: that action keeps the entry), and forgets what the watchdog
 * saw of it. `active` are the statuses a test generates in.
 */
export async function retireGeneratingTest(orgId: string, testId: string, active: readonly string[]): Promise<void> {
  const values = Object.fromEntries(active.map((s, i) => [`:a${i}`, s]));
  try {
    await doc.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.catalog(orgId, 'TEST', testId),
        UpdateExpression: 'REMOVE gsi2pk, gsi2sk',
        ConditionExpression: `attribute_exists(pk) AND (attribute_exists(#deletedAt) OR NOT (#status IN (${Object.keys(values).join(', ')})))`,
        ExpressionAttributeNames: { '#deletedAt': 'deletedAt', '#status': 'status' },
        ExpressionAttributeValues: values,
      }),
    );
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
    return; // generating again (or gone): the entry stays, and so does the record
  }
  await doc.send(new DeleteCommand({ TableName: tableName, Key: keys.generationWatch(testId) }));
}

/**
 * What the watchdog saw of a run or a test's generation: its progress (a marker that changes
 * whenever it moves), when that last changed, and the re-deliveries sent since it stopped moving;
 * `seq`, for a test, the generation action it saw (a new action starts a new count).
 */
export interface Watch {
  progress: string;
  movedAt: string;
  redeliveries: number;
  seq?: number;
}

async function getWatch(key: Key): Promise<Watch | undefined> {
  const out = await doc.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }));
  const item = out.Item;
  if (!item) return undefined;
  return {
    progress: String(item.progress),
    movedAt: String(item.movedAt),
    redeliveries: Number(item.redeliveries),
    ...(typeof item.seq === 'number' ? { seq: item.seq } : {}),
  };
}

/**
 * Writes what the watchdog now sees, only if the record is still `before` (or absent, for a first
 * look): a second scanner pass at once changes nothing more. False when it was changed meanwhile.
 */
async function putWatch(key: Key, before: Watch | undefined, next: Watch, at: Date): Promise<boolean> {
  try {
    await doc.send(
      new PutCommand({
        TableName: tableName,
        Item: {
          ...key,
          entity: key.pk.slice(0, key.pk.indexOf('#')),
          ...next,
          ttl: Math.floor(at.getTime() / 1000) + WATCH_TTL_DAYS * 86_400,
        },
        ...(before
          ? {
              ConditionExpression: '#p = :p AND #m = :m AND #r = :r',
              ExpressionAttributeNames: { '#p': 'progress', '#m': 'movedAt', '#r': 'redeliveries' },
              ExpressionAttributeValues: { ':p': before.progress, ':m': before.movedAt, ':r': before.redeliveries },
            }
          : { ConditionExpression: 'attribute_not_exists(pk)' }),
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw error;
  }
}

/** What the watchdog saw of a run. */
export const getRunWatch = (runId: string): Promise<Watch | undefined> => getWatch(keys.runWatch(runId));
/** Writes what the watchdog sees of a run, if what it saw is still `before` (putWatch). */
export const putRunWatch = (runId: string, before: Watch | undefined, next: Watch, at: Date): Promise<boolean> =>
  putWatch(keys.runWatch(runId), before, next, at);
/** What the watchdog saw of a test's generation. */
export const getGenerationWatch = (testId: string): Promise<Watch | undefined> =>
  getWatch(keys.generationWatch(testId));
/** Writes what the watchdog sees of a test's generation, if what it saw is still `before` (putWatch). */
export const putGenerationWatch = (
  testId: string,
  before: Watch | undefined,
  next: Watch,
  at: Date,
): Promise<boolean> => putWatch(keys.generationWatch(testId), before, next, at);
