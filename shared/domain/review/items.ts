import { randomBytes } from 'node:crypto';
import type { AuthContext } from '../../auth/context.js';
import { getRecord, transact } from '../../db/catalog.js';
import { batchGet } from '../../db/query.js';
import { keys } from '../../db/keys.js';
import { scoredSessionIdsBetween } from '../../db/monitors.js';
import { toRecord } from '../../db/records.js';
import { addItemWrites, listReviewItems, queueSessionIds, type StoredItem, type StoredQueue } from '../../db/review.js';
import { getStoredRun, sessionsOfRun } from '../../db/runs.js';
import { getSession } from '../../db/sessions.js';
import { NotFoundError, ValidationError } from '../../errors.js';
import type { ReviewItem, ReviewItemsAdd, ReviewOrigin } from '../../schemas/review.js';
import { clock } from '../common/clock.js';
import { monitorEntity } from '../common/entities.js';
import { newId } from '../common/ids.js';
import type { Page } from '../common/list.js';
import { bodyReference } from '../common/references.js';
import { getStoredQueue, itemView } from './queues.js';
import { seededSample } from './statistics.js';
import type { Monitor } from '../../schemas/monitors.js';
import type { Session } from '../../schemas/sessions.js';

/**
 * A queue's items: sessions picked by hand, or drawn as a seeded uniform sample of a run's
 * COMPLETED sessions or of a monitor's scored ones, each added in its own small transaction.
 */

/** A monitor's sampling range when the request gives none: its last 7 days. */
const DEFAULT_MONITOR_DAYS = 7;
/** Sessions added at once (each is its own small transaction). */
const ADD_CONCURRENCY = 8;

/** Sessions of the queue's product, by id, in the order given; 400 naming the first that is not. */
async function sessionsOfQueue(auth: AuthContext, queue: StoredQueue, ids: string[]): Promise<Session[]> {
  const out: Session[] = [];
  for (const id of ids) {
    const session = await bodyReference(() => getSession(auth.organizationId, id), 'sessionIds', id, 'session');
    if (session.productId !== queue.productId)
      throw new ValidationError(
        `sessionIds: session ${id} belongs to product ${session.productId}, not to the queue's product ${queue.productId}`,
      );
    out.push(session);
  }
  return out;
}

function checkOneSource(input: ReviewItemsAdd): 'picked' | 'run' | 'monitor' {
  const given = (['sessionIds', 'runId', 'monitorId'] as const).filter((k) => input[k] !== undefined);
  if (given.length !== 1)
    throw new ValidationError(
      given.length === 0
        ? 'give exactly one of sessionIds, runId (with sampleSize) or monitorId (with sampleSize)'
        : `give exactly one of sessionIds, runId or monitorId, not ${given.join(' and ')} together`,
    );
  const source = given[0] === 'sessionIds' ? 'picked' : given[0] === 'runId' ? 'run' : 'monitor';
  if (source === 'picked') {
    const extra = (['sampleSize', 'seed', 'from', 'to'] as const).filter((k) => input[k] !== undefined);
    if (extra.length)
      throw new ValidationError(`${extra[0]} applies to a sample (runId or monitorId), not to sessionIds`);
  } else {
    if (input.sampleSize === undefined) throw new ValidationError(`sampleSize is required with ${given[0]}`);
    if (source === 'run' && (input.from !== undefined || input.to !== undefined))
      throw new ValidationError(
        `${input.from !== undefined ? 'from' : 'to'} applies to a monitor's sample, not to a run's`,
      );
  }
  return source;
}

/** A run's or a monitor's sessions to draw from, of the queue's product, not yet in the queue. */
async function sampleFrame(auth: AuthContext, queue: StoredQueue, input: ReviewItemsAdd): Promise<Session[]> {
  if (input.runId !== undefined) {
    const run = await bodyReference(() => getStoredRun(auth.organizationId, input.runId!), 'runId', input.runId, 'run');
    if (run.productId !== queue.productId)
      throw new ValidationError(
        `runId: run ${run.id} belongs to product ${run.productId}, not to the queue's product ${queue.productId}`,
      );
    return (await sessionsOfRun(run.id)).filter((s) => s.status === 'COMPLETED' && !s.deletedAt);
  }
  const monitorId = input.monitorId!;
  const monitor = await bodyReference(
    () => getRecord<Monitor>(monitorEntity, auth.organizationId, monitorId),
    'monitorId',
    monitorId,
    'monitor',
  );
  if (monitor.productId !== queue.productId)
    throw new ValidationError(
      `monitorId: monitor ${monitorId} belongs to product ${monitor.productId}, not to the queue's product ${queue.productId}`,
    );
  const to = input.to ?? clock.now().toISOString();
  const from = input.from ?? new Date(Date.parse(to) - DEFAULT_MONITOR_DAYS * 86_400_000).toISOString();
  if (from > to) throw new ValidationError(`from ${from} is after to ${to}`);
  const ids = await scoredSessionIdsBetween(monitorId, from, to);
  const items = await batchGet(ids.map((id) => keys.session(id)));
  return items
    .map((i) => toRecord<Session>(i))
    .filter((s) => s.organizationId === auth.organizationId && s.productId === queue.productId && !s.deletedAt);
}

/** POST /reviewQueues/{id}/items: sessions picked by hand, or a seeded uniform sample. */
export async function addItems(
  auth: AuthContext,
  queueId: string,
  input: ReviewItemsAdd,
): Promise<{ added: number; skipped: number; seed: string | null; items: ReviewItem[] }> {
  const source = checkOneSource(input);
  const queue = await getStoredQueue(auth, queueId);
  const present = await queueSessionIds(queue.id);
  let chosen: Session[];
  let skipped = 0;
  let seed: string | null = null;
  let origin: ReviewOrigin;
  if (source === 'picked') {
    const sessions = await sessionsOfQueue(auth, queue, input.sessionIds!);
    chosen = sessions.filter((s) => !present.has(s.id));
    skipped = sessions.length - chosen.length;
    origin = 'picked';
  } else {
    const frame = (await sampleFrame(auth, queue, input))
      .filter((s) => !present.has(s.id))
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    seed = input.seed ?? randomBytes(8).toString('hex');
    chosen = seededSample(frame, input.sampleSize!, seed);
    origin = 'sample';
  }
  const now = clock.now();
  const items: StoredItem[] = chosen.map((s, i) => ({
    // Ids in the sample's order (a ULID per millisecond step keeps them ordered within one call).
    id: newId('reviewItem', now.getTime() + i),
    queueId: queue.id,
    organizationId: auth.organizationId,
    sessionId: s.id,
    productId: s.productId,
    runId: s.runId ?? null,
    origin,
    status: 'PENDING',
    labels: [],
    rev: 0,
    createdAt: now.toISOString(),
  }));
  const added: StoredItem[] = [];
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++]!;
      try {
        await transact(addItemWrites(queue, item), (codes) => {
          if (codes[0] === 'ConditionalCheckFailed') return new AlreadyQueued();
          if (codes[2] === 'ConditionalCheckFailed') return new NotFoundError(`review queue ${queue.id} not found`);
          return undefined;
        });
        added.push(item);
      } catch (error) {
        // Another request added the session meanwhile: it is there once, as asked.
        if (error instanceof AlreadyQueued) skipped++;
        else throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(ADD_CONCURRENCY, items.length) }, worker));
  added.sort((a, b) => (a.id < b.id ? -1 : 1));
  return { added: added.length, skipped, seed, items: added.map(itemView) };
}
class AlreadyQueued extends Error {}

/** GET /reviewQueues/{id}/items: oldest first; `reviewer` keeps the items that reviewer labelled. */
export async function listItems(
  auth: AuthContext,
  queueId: string,
  query: { status?: ReviewItem['status']; reviewer?: string; limit?: number; offset?: number },
): Promise<Page<ReviewItem>> {
  const queue = await getStoredQueue(auth, queueId);
  const all = (await listReviewItems(queue.id)).filter(
    (i) =>
      (!query.status || i.status === query.status) &&
      (!query.reviewer || i.labels.some((l) => l.reviewer === query.reviewer)),
  );
  const offset = query.offset ?? 0;
  return { items: all.slice(offset, offset + (query.limit ?? 100)).map(itemView), total: all.length };
}
