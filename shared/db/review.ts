import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { itemFor, type TransactItem } from './catalog.js';
import { doc, tableName } from './client.js';
import { keys } from './keys.js';
import { queryAll, queryIndex, queryPrefix } from './query.js';
import { toRecord } from './records.js';
import type { ReviewItem, ReviewOrigin, ReviewQueue } from '../schemas/review.js';

/**
 * Review queues (`RQUEUE#` catalog records), their items and session guards (the queue's own
 * partition), and labels (`LABELS#<metric>`, by session; a run's on gsi1). Every item and
 * expression of human review is built here.
 */

/** A queue as stored: its counters (`itemCount`, `doneCount`) instead of the answer's `counts`. */
export type StoredQueue = Omit<ReviewQueue, 'counts'> & { itemCount?: number; doneCount?: number };

/** An item as stored: what it needs beyond the answer to write labels (`rev`: its version). */
export type StoredItem = ReviewItem & {
  productId: string;
  runId: string | null;
  rev: number;
};

const QUEUE_TYPE = { type: 'RQUEUE', label: 'review queue', byProduct: true } as const;

export function queuePutItem(queue: StoredQueue): Record<string, unknown> {
  return { ...itemFor(QUEUE_TYPE, queue), itemCount: 0, doneCount: 0 };
}

const counter = (orgId: string, queueId: string, field: 'itemCount' | 'doneCount', by: number): TransactItem => ({
  Update: {
    TableName: tableName,
    Key: keys.catalog(orgId, 'RQUEUE', queueId),
    UpdateExpression: 'ADD #c :by',
    ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(deletedAt)',
    ExpressionAttributeNames: { '#c': field },
    ExpressionAttributeValues: { ':by': by },
  },
});

/**
 * Adds one session to a queue: its guard (the first write fails when the session is already
 * there), the item (on the pending index) and the queue's item count, all or nothing.
 */
export function addItemWrites(queue: StoredQueue, item: StoredItem): TransactItem[] {
  return [
    {
      Put: {
        TableName: tableName,
        Item: { ...keys.reviewSession(queue.id, item.sessionId), entity: 'RQSESSION', itemId: item.id },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    {
      Put: {
        TableName: tableName,
        Item: {
          ...keys.reviewItem(queue.id, item.id),
          ...keys.reviewPending(queue.id, item.id),
          entity: 'RQITEM',
          ...item,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    counter(queue.organizationId, queue.id, 'itemCount', 1),
  ];
}

/** The ids of the sessions a queue holds. */
export async function queueSessionIds(queueId: string): Promise<Set<string>> {
  const { pk, skPrefix } = keys.reviewSessionPrefix(queueId);
  const items = await queryPrefix(pk, skPrefix, { consistent: true });
  return new Set(items.map((i) => String(i.sk).slice(skPrefix.length)));
}

const itemOf = (i: Record<string, unknown>): StoredItem => toRecord<StoredItem>(i);

export async function getReviewItem(queueId: string, itemId: string): Promise<StoredItem | undefined> {
  const out = await doc.send(
    new GetCommand({ TableName: tableName, Key: keys.reviewItem(queueId, itemId), ConsistentRead: true }),
  );
  return out.Item ? itemOf(out.Item) : undefined;
}

/** Every item of a queue, oldest first. */
export async function listReviewItems(queueId: string): Promise<StoredItem[]> {
  const { pk, skPrefix } = keys.reviewItemPrefix(queueId);
  return (await queryPrefix(pk, skPrefix, { consistent: true })).map(itemOf);
}

/** The PENDING items of a queue, oldest first (the sparse pending index). */
export async function pendingReviewItems(queueId: string): Promise<StoredItem[]> {
  return (await queryIndex('gsi1', keys.reviewPendingPartition(queueId))).map(itemOf);
}

/** One label row: a reviewer's score of one metric on one item's session. */
export interface LabelRow {
  organizationId: string;
  productId: string;
  queueId: string;
  itemId: string;
  sessionId: string;
  runId: string | null;
  origin: ReviewOrigin;
  metricId: string;
  reviewer: string;
  score: number;
  createdAt: string;
}

function labelPut(row: LabelRow): TransactItem {
  return {
    Put: {
      TableName: tableName,
      Item: {
        ...keys.label(row.metricId, row.sessionId, row.itemId, row.reviewer),
        ...(row.runId ? keys.labelByRun(row.runId, row.metricId, row.sessionId, row.itemId, row.reviewer) : {}),
        entity: 'LABEL',
        ...row,
      },
    },
  };
}

/**
 * A reviewer's labels on an item: the item's new labels and status (only if nobody wrote it since
 * it was read: `rev`), its leaving or re-entering the pending index, the queue's done count, and
 * one label row per metric labelled, in one transaction.
 */
export function labelWrites(
  queue: StoredQueue,
  before: StoredItem,
  after: Pick<StoredItem, 'labels' | 'status'>,
  rows: LabelRow[],
): TransactItem[] {
  const nowDone = after.status === 'DONE';
  const wasDone = before.status === 'DONE';
  const pending = keys.reviewPending(queue.id, before.id);
  const names: Record<string, string> = { '#l': 'labels', '#s': 'status', '#rev': 'rev' };
  const values: Record<string, unknown> = { ':l': after.labels, ':s': after.status, ':rev': before.rev, ':one': 1 };
  let update = 'SET #l = :l, #s = :s, #rev = #rev + :one';
  if (nowDone && !wasDone) update += ' REMOVE gsi1pk, gsi1sk';
  if (!nowDone && wasDone) {
    update = `${update}, gsi1pk = :gpk, gsi1sk = :gsk`;
    values[':gpk'] = pending.gsi1pk;
    values[':gsk'] = pending.gsi1sk;
  }
  const items: TransactItem[] = [
    {
      Update: {
        TableName: tableName,
        Key: keys.reviewItem(queue.id, before.id),
        UpdateExpression: update,
        ConditionExpression: '#rev = :rev',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      },
    },
    ...rows.map(labelPut),
  ];
  if (nowDone !== wasDone) items.push(counter(queue.organizationId, queue.id, 'doneCount', nowDone ? 1 : -1));
  return items;
}

/** The label rows of one metric of an organization (every page). */
export async function labelsOfMetric(orgId: string, metricId: string): Promise<LabelRow[]> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk',
    FilterExpression: 'organizationId = :org',
    ExpressionAttributeValues: { ':pk': keys.labelPartition(metricId), ':org': orgId },
  });
  return items.map((i) => toRecord<LabelRow>(i));
}

/** The label rows of a run's sessions, of one metric. */
export async function labelsOfRun(runId: string, metricId?: string): Promise<LabelRow[]> {
  const items = await queryIndex('gsi1', keys.labelByRunPartition(runId), metricId ? `${metricId}#` : undefined);
  return items.map((i) => toRecord<LabelRow>(i));
}
