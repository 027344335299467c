import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { doc, tableName } from './client.js';
import { isConditionalCheckFailed } from './errors.js';
import { keys } from './keys.js';
import { queryIndex } from './query.js';
import { ACTIVE_RUN_SHARDS } from './runs.js';

/**
 * The stall watchdog's records: the index of runs not yet finished (a sparse gsi2 entry on the run
 * item, written when it is created) and, per run, what the watchdog saw (`RUNWATCH#<run>`).
 */

/** A run on the index of runs not yet finished. */
export interface ActiveRun {
  organizationId: string;
  runId: string;
}

/** Every run on the index, shard by shard (Queries of the sparse index, never a Scan). */
export async function activeRuns(): Promise<ActiveRun[]> {
  const out: ActiveRun[] = [];
  for (let shard = 0; shard < ACTIVE_RUN_SHARDS; shard++)
    for (const item of await queryIndex('gsi2', keys.activeRunPartition(shard)))
      out.push({ organizationId: String(item.organizationId), runId: String(item.id) });
  return out;
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

/** What the watchdog saw of a run: sessions finished, when that number last moved, re-deliveries sent. */
export interface RunWatch {
  finished: number;
  movedAt: string;
  redeliveries: number;
}

export async function getRunWatch(runId: string): Promise<RunWatch | undefined> {
  const out = await doc.send(new GetCommand({ TableName: tableName, Key: keys.runWatch(runId), ConsistentRead: true }));
  return out.Item
    ? {
        finished: Number(out.Item.finished),
        movedAt: String(out.Item.movedAt),
        redeliveries: Number(out.Item.redeliveries),
      }
    : undefined;
}

/**
 * Writes what the watchdog now sees, only if the record is still `before` (or absent, for a first
 * look): a second scanner pass at once changes nothing more. False when it was changed meanwhile.
 */
export async function putRunWatch(runId: string, before: RunWatch | undefined, next: RunWatch): Promise<boolean> {
  try {
    await doc.send(
      new PutCommand({
        TableName: tableName,
        Item: { ...keys.runWatch(runId), entity: 'RUNWATCH', ...next },
        ...(before
          ? {
              ConditionExpression: 'finished = :f AND movedAt = :m AND redeliveries = :r',
              ExpressionAttributeValues: { ':f': before.finished, ':m': before.movedAt, ':r': before.redeliveries },
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
