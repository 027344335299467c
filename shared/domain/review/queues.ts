import type { AuthContext } from '../../auth/context.js';
import {
  createRecord,
  getRecord,
  listOrgRecords,
  listProductRecords,
  softDeleteRecord,
  transact,
  updateRecord,
} from '../../db/catalog.js';
import { getVisibleMetric } from '../../db/metrics.js';
import { labelWrites, listReviewItems, queuePutItem, type StoredItem, type StoredQueue } from '../../db/review.js';
import { ValidationError } from '../../errors.js';
import type {
  ReviewItem,
  ReviewQueue,
  ReviewQueueCreate,
  ReviewQueueListQuery,
  ReviewQueueUpdate,
} from '../../schemas/review.js';
import { requireLiveProduct } from '../catalog/product-refs.js';
import { clock } from '../common/clock.js';
import { reviewQueueEntity } from '../common/entities.js';
import { newId } from '../common/ids.js';
import { anyOf, applyList, type Page } from '../common/list.js';
import { bodyReference } from '../common/references.js';
import { isDone } from './labels.js';

/**
 * Review queues: a product's sessions for people to label against some metrics. Items come in
 * picked by hand or drawn at random (a run's COMPLETED sessions, or a monitor's scored ones); only
 * drawn items may correct a run's score, since a hand-picked set is not a random sample.
 */

export function queueView(stored: StoredQueue): ReviewQueue {
  const { itemCount = 0, doneCount = 0, ...rest } = stored;
  return {
    ...rest,
    instructions: rest.instructions ?? null,
    counts: { items: itemCount, pending: itemCount - doneCount, done: doneCount },
  };
}

export function itemView(stored: StoredItem): ReviewItem {
  const { productId: _p, runId: _r, rev: _v, ...item } = stored;
  return { ...item, labels: item.labels.map((l) => ({ ...l, reason: l.reason ?? null })) };
}

export async function getStoredQueue(auth: AuthContext, id: string): Promise<StoredQueue> {
  return getRecord<StoredQueue>(reviewQueueEntity, auth.organizationId, id);
}

/** The queue's metrics must be live metrics the organization sees (its own or predefined, any source). */
async function checkMetrics(auth: AuthContext, metricIds: string[]): Promise<void> {
  for (const id of metricIds) {
    const metric = await bodyReference(() => getVisibleMetric(auth.organizationId, id), 'metricIds', id, 'metric');
    if (metric.deletedAt) throw new ValidationError(`metricIds ${id} does not name an existing metric`);
  }
}

export async function createQueue(auth: AuthContext, input: ReviewQueueCreate): Promise<ReviewQueue> {
  await requireLiveProduct(auth, input.productId);
  await checkMetrics(auth, input.metricIds);
  const queue: StoredQueue = {
    id: newId('reviewQueue'),
    organizationId: auth.organizationId,
    productId: input.productId,
    name: input.name,
    metricIds: input.metricIds,
    reviewersPerItem: input.reviewersPerItem ?? 1,
    instructions: input.instructions ?? null,
    userId: auth.userId,
    createdAt: clock.now().toISOString(),
  };
  await createRecord(reviewQueueEntity, queue, [], queuePutItem(queue));
  return queueView(queue);
}

export async function getQueue(auth: AuthContext, id: string): Promise<ReviewQueue> {
  return queueView(await getStoredQueue(auth, id));
}

export async function listQueues(auth: AuthContext, query: ReviewQueueListQuery): Promise<Page<ReviewQueue>> {
  const records = query.productIds
    ? await listProductRecords<StoredQueue>(reviewQueueEntity, auth.organizationId, query.productIds)
    : await listOrgRecords<StoredQueue>(reviewQueueEntity, auth.organizationId);
  return applyList(records.map(queueView), query, {
    sortable: ['createdAt', 'name', 'productId', 'reviewersPerItem'],
    filters: [...anyOf<ReviewQueue>(query.productIds, (q) => q.productId)],
  });
}

/**
 * PATCH: a new `reviewersPerItem` applies to every item at once: items that now have enough
 * reviewers become DONE, and DONE items that no longer have enough go back to PENDING.
 */
export async function updateQueue(auth: AuthContext, id: string, body: ReviewQueueUpdate): Promise<ReviewQueue> {
  const before = await getStoredQueue(auth, id);
  const updated = await updateRecord<StoredQueue>(reviewQueueEntity, auth.organizationId, id, { ...body });
  if (body.reviewersPerItem !== undefined && body.reviewersPerItem !== before.reviewersPerItem) {
    await restatusItems(updated);
    return getQueue(auth, id);
  }
  return queueView(updated);
}

/** Sets every item's status under the queue's `reviewersPerItem` (each change with the done count). */
async function restatusItems(queue: StoredQueue): Promise<void> {
  for (const item of await listReviewItems(queue.id)) {
    const status = isDone(queue, item.labels) ? 'DONE' : 'PENDING';
    if (status === item.status) continue;
    // A label written meanwhile settled the item's status itself (under the new count): nothing to do.
    await transact(labelWrites(queue, item, { labels: item.labels, status }, []), () => new Changed()).catch(
      (error: unknown) => {
        if (!(error instanceof Changed)) throw error;
      },
    );
  }
}
class Changed extends Error {}

/** DELETE (soft): the queue and its items are gone from reads; labels already given still count. */
export async function deleteQueue(auth: AuthContext, id: string): Promise<{ id: string; deletedAt: string }> {
  return softDeleteRecord(reviewQueueEntity, auth.organizationId, id, clock.now().toISOString());
}
