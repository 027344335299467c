import type { AuthContext } from '../../auth/context.js';
import { getRecord, transact } from '../../db/catalog.js';
import { getVisibleMetric } from '../../db/metrics.js';
import { restoreItem, restoreItems } from '../../db/offload.js';
import { toRecord } from '../../db/records.js';
import { getReviewItem, labelWrites, pendingReviewItems, type LabelRow } from '../../db/review.js';
import { getSession, listTurnItems } from '../../db/sessions.js';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.js';
import type { LabelsPut, ReviewItem, ReviewTask } from '../../schemas/review.js';
import { clock } from '../common/clock.js';
import { testCaseEntity } from '../common/entities.js';
import { awaits, isDone, mergeLabels } from './labels.js';
import { getStoredQueue, itemView } from './queues.js';
import type { TestCase } from '../../schemas/tests.js';
import type { Turn } from '../../schemas/sessions.js';

/**
 * Labelling: a reviewer asks for the next item and labels it. The task a reviewer sees holds the
 * conversation and the queue's instructions, never the judge's scores or reasons: a reviewer who
 * sees the judge anchors on it.
 */

/** Attempts at a label write that lost a race with another reviewer's (each reads the item again). */
const LABEL_ATTEMPTS = 4;
/**
 * What an item's labels may hold, in bytes of JSON: an item must stay under DynamoDB's 400 KB, and
 * 5 reviewers × 10 metrics × 10,000-character reasons could pass it.
 */
export const MAX_LABEL_BYTES = 300_000;

/** POST /reviewQueues/{id}/next: the oldest PENDING item `reviewer` has not labelled; undefined when none is left. */
export async function nextTask(auth: AuthContext, queueId: string, reviewer: string): Promise<ReviewTask | undefined> {
  const queue = await getStoredQueue(auth, queueId);
  const open = (await pendingReviewItems(queue.id)).filter((i) => awaits(queue.metricIds, i.labels, reviewer));
  const item = open[0];
  if (!item) return undefined;
  const session = await getSession(auth.organizationId, item.sessionId, { includeDeleted: true });
  const turns = (await restoreItems(await listTurnItems(session.id))).map((i) => toRecord<Turn>(i));
  let expectedOutput: string | null = null;
  if (session.testCaseId) {
    try {
      const testCase = await getRecord<TestCase>(testCaseEntity, auth.organizationId, session.testCaseId, {
        includeDeleted: true,
        restore: restoreItem,
      });
      expectedOutput = testCase.expectedOutput ?? null;
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
    }
  }
  const metrics = [];
  for (const id of queue.metricIds) {
    const m = await getVisibleMetric(auth.organizationId, id);
    metrics.push({ id: m.id, name: m.name, description: m.description ?? '' });
  }
  return {
    queueId: queue.id,
    itemId: item.id,
    sessionId: session.id,
    instructions: queue.instructions ?? null,
    metrics,
    context: session.context ?? null,
    expectedOutput,
    turns: turns
      .sort((a, b) => a.index - b.index)
      .map((t) => ({ index: t.index, input: t.input, output: t.output, retrievalContext: t.retrievalContext ?? [] })),
    remaining: open.length,
  };
}

/**
 * PUT /reviewQueues/{id}/items/{itemId}/labels: replaces `reviewer`'s labels of those metrics; the
 * item is DONE once `reviewersPerItem` distinct reviewers labelled every metric of the queue.
 */
export async function putLabels(
  auth: AuthContext,
  queueId: string,
  itemId: string,
  body: LabelsPut,
  attempt = 1,
): Promise<ReviewItem> {
  const queue = await getStoredQueue(auth, queueId);
  const seen = new Set<string>();
  for (const l of body.labels) {
    if (!queue.metricIds.includes(l.metricId))
      throw new ValidationError(
        `labels: metric ${l.metricId} is not one of the queue's metrics (${queue.metricIds.join(', ')})`,
      );
    if (seen.has(l.metricId)) throw new ValidationError(`labels: metric ${l.metricId} is labelled twice`);
    seen.add(l.metricId);
  }
  const item = await getReviewItem(queue.id, itemId);
  if (!item || item.organizationId !== auth.organizationId)
    throw new NotFoundError(`review item ${itemId} not found in queue ${queue.id}`);
  const at = clock.now().toISOString();
  const labels = mergeLabels(item.labels ?? [], body.reviewer, body.labels, at);
  if (Buffer.byteLength(JSON.stringify(labels)) > MAX_LABEL_BYTES)
    throw new ValidationError(
      `labels: the item's labels would pass ${MAX_LABEL_BYTES} bytes with these reasons; shorten the reasons`,
    );
  const status = isDone(queue, labels) ? 'DONE' : 'PENDING';
  const rows: LabelRow[] = body.labels.map((l) => ({
    organizationId: auth.organizationId,
    productId: item.productId,
    queueId: queue.id,
    itemId: item.id,
    sessionId: item.sessionId,
    runId: item.runId,
    origin: item.origin,
    metricId: l.metricId,
    reviewer: body.reviewer,
    score: l.score,
    createdAt: at,
  }));
  try {
    await transact(labelWrites(queue, item, { labels, status }, rows), (codes) =>
      codes[0] === 'ConditionalCheckFailed' ? new LostRace() : undefined,
    );
  } catch (error) {
    if (!(error instanceof LostRace)) throw error;
    if (attempt >= LABEL_ATTEMPTS)
      throw new ConflictError(`review item ${itemId} changed while this request ran; retry`);
    return putLabels(auth, queueId, itemId, body, attempt + 1);
  }
  return itemView({ ...item, labels, status, rev: item.rev + 1 });
}
class LostRace extends Error {}
