import type { AuthContext } from '../../auth/context.js';
import {
  createRecord,
  getRecord,
  listOrgRecords,
  listProductRecords,
  softDeleteWrite,
  transact,
  updateWrite,
  type TransactItem,
} from '../../db/catalog.js';
import { monitorItem, samplingMarker } from '../../db/monitors.js';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../errors.js';
import type { Version } from '../../schemas/products.js';
import {
  SYSTEM_STATUSES,
  type MonitorCreate,
  type MonitorListQuery,
  type MonitorUpdate,
} from '../../schemas/monitors.js';
import { clock } from '../common/clock.js';
import { monitorEntity, versionEntity } from '../common/entities.js';
import { newId } from '../common/ids.js';
import { rejectImmutable } from '../common/immutable.js';
import { anyOf, applyList, intersects, type Page } from '../common/list.js';
import { whyNotMonitorable } from '../metrics/metric-rules.js';
import { requireLiveProduct } from '../catalog/product-refs.js';
import { loadFamily } from './families.js';
import { bodyReference } from '../common/references.js';
import { NO_EVENT, publish } from '../webhooks/events.js';
import { monitorStatusEvent } from './status-events.js';
import type { Monitor } from '../../schemas/monitors.js';

/** Each bound family's current revision must be monitorable. */
async function checkFamilies(auth: AuthContext, groupIds: string[], now: Date): Promise<void> {
  for (const [i, groupId] of groupIds.entries()) {
    const family = await loadFamily(auth.organizationId, groupId, now);
    if (family.foreignOnly)
      throw new ForbiddenError(`metricGroupIds[${i}] ${groupId} is another organization's metric family`);
    if (!family.current)
      throw new ValidationError(`metricGroupIds[${i}] ${groupId} does not name a metric family with a live metric`);
    const why = whyNotMonitorable(family.current, now);
    if (why)
      throw new ValidationError(
        `metricGroupIds[${i}] ${groupId} cannot be monitored: its current revision ${family.current.id} ${why
          .replace(/^it /, 'is ')
          .replace(/^is needs/, 'needs')
          .replace(/^is its/, 'has')}`,
      );
  }
}

function checkStatusWrite(status: string | undefined): void {
  if (status && (SYSTEM_STATUSES as readonly string[]).includes(status)) {
    throw new ValidationError(`status ${status} is set only by the system; write ACTIVE or PAUSED`);
  }
}

function checkPairs(m: Pick<Monitor, 'filterQuery' | 'filterTarget' | 'excludeQuery' | 'excludeTarget'>): void {
  if ((m.filterQuery === null) !== (m.filterTarget === null))
    throw new ValidationError('filterQuery and filterTarget must be set together (or both null)');
  if ((m.excludeQuery === null) !== (m.excludeTarget === null))
    throw new ValidationError('excludeQuery and excludeTarget must be set together (or both null)');
}

async function checkVersion(auth: AuthContext, versionId: string | null | undefined, productId: string): Promise<void> {
  if (!versionId) return;
  const version = await bodyReference(
    () => getRecord<Version>(versionEntity, auth.organizationId, versionId),
    'versionId',
    versionId,
    'version',
  );
  if (version.productId !== productId) throw new ValidationError(`versionId ${versionId} belongs to another product`);
}

export async function createMonitor(auth: AuthContext, input: MonitorCreate): Promise<Monitor> {
  checkStatusWrite(input.status);
  await requireLiveProduct(auth, input.productId);
  await checkVersion(auth, input.versionId, input.productId);
  const now = clock.now();
  await checkFamilies(auth, input.metricGroupIds, now);
  const monitor: Monitor = {
    id: newId('monitor'),
    organizationId: auth.organizationId,
    productId: input.productId,
    name: input.name,
    metricGroupIds: input.metricGroupIds,
    versionId: input.versionId ?? null,
    userId: auth.userId,
    samplingPercentage: input.samplingPercentage,
    monthlyCreditCap: input.monthlyCreditCap ?? null,
    filterQuery: input.filterQuery ?? null,
    filterTarget: input.filterTarget ?? null,
    excludeQuery: input.excludeQuery ?? null,
    excludeTarget: input.excludeTarget ?? null,
    status: input.status ?? 'ACTIVE',
    statusUserAt: now.toISOString(),
    createdAt: now.toISOString(),
  };
  checkPairs(monitor);
  await createRecord(monitorEntity, monitor, [], monitorItem(monitor));
  return monitor;
}

export function getMonitor(
  auth: AuthContext,
  id: string,
  options: { includeDeleted?: boolean } = { includeDeleted: true },
): Promise<Monitor> {
  return getRecord<Monitor>(monitorEntity, auth.organizationId, id, options);
}

export async function listMonitors(auth: AuthContext, query: MonitorListQuery): Promise<Page<Monitor>> {
  const records = query.productIds
    ? await listProductRecords<Monitor>(monitorEntity, auth.organizationId, query.productIds)
    : await listOrgRecords<Monitor>(monitorEntity, auth.organizationId);
  return applyList(records, query, {
    sortable: ['createdAt', 'name', 'status', 'samplingPercentage', 'productId'],
    filters: [
      ...anyOf<Monitor>(query.productIds, (m) => m.productId),
      ...anyOf<Monitor>(query.versionIds, (m) => m.versionId),
      ...anyOf<Monitor>(query.statuses, (m) => m.status),
      ...intersects<Monitor>(query.metricGroupIds, (m) => m.metricGroupIds),
    ],
  });
}

/**
 * PATCH: a status write is ACTIVE or PAUSED only (nothing changes otherwise); a sampling change is
 * recorded as a marker in the same transaction.
 */
export async function updateMonitor(auth: AuthContext, id: string, body: MonitorUpdate, attempt = 1): Promise<Monitor> {
  rejectImmutable(body, ['productId']);
  checkStatusWrite(body.status);
  const current = await getRecord<Monitor>(monitorEntity, auth.organizationId, id);
  const now = clock.now();
  const next: Monitor = { ...current };
  const fields = [
    'name',
    'metricGroupIds',
    'versionId',
    'samplingPercentage',
    'monthlyCreditCap',
    'filterQuery',
    'filterTarget',
    'excludeQuery',
    'excludeTarget',
  ] as const;
  for (const f of fields) if (body[f] !== undefined) (next as unknown as Record<string, unknown>)[f] = body[f];
  if (body.status !== undefined) {
    next.status = body.status;
    next.statusUserAt = now.toISOString();
  }
  checkPairs(next);
  if (body.versionId !== undefined) await checkVersion(auth, body.versionId, current.productId);
  if (body.metricGroupIds) await checkFamilies(auth, body.metricGroupIds, now);
  // Only the fields sent are written, so a user's status write always lands (the scanner's writes
  // are the conditional ones) and no concurrent change of another field is lost.
  const set: Record<string, unknown> = {};
  for (const f of [...fields, 'status', 'statusUserAt'] as const) {
    if (JSON.stringify(next[f]) !== JSON.stringify(current[f])) set[f] = next[f];
  }
  if (Object.keys(set).length === 0) return current;
  // A status change holds only from the status it was read in, so its event names the change
  // exactly once; a concurrent scanner write makes it read again and retry.
  const statusChanged = next.status !== current.status;
  const fromStatus = statusChanged ? { status: current.status } : {};
  const items: TransactItem[] = [updateWrite(monitorEntity, auth.organizationId, id, set, [], fromStatus)];
  if (body.samplingPercentage !== undefined && body.samplingPercentage !== current.samplingPercentage) {
    items.push(samplingMarker(id, now.toISOString(), body.samplingPercentage));
  }
  const writes = statusChanged
    ? await monitorStatusEvent({ ...next, status: current.status }, next.status, 'user')
    : NO_EVENT;
  try {
    await transact([...items, ...writes.items], (codes) =>
      codes[0] === 'ConditionalCheckFailed' ? new StatusRaced() : undefined,
    );
  } catch (error) {
    if (!(error instanceof StatusRaced)) throw error;
    await getRecord<Monitor>(monitorEntity, auth.organizationId, id); // 404 when it was deleted meanwhile
    if (attempt >= 3) throw new ConflictError(`monitor ${id} changed status while this request ran; retry`);
    return updateMonitor(auth, id, body, attempt + 1);
  }
  await publish(writes);
  return getRecord<Monitor>(monitorEntity, auth.organizationId, id);
}

class StatusRaced extends Error {}

export async function deleteMonitor(auth: AuthContext, id: string): Promise<{ id: string; deletedAt: string }> {
  await getRecord<Monitor>(monitorEntity, auth.organizationId, id);
  const deletedAt = clock.now().toISOString();
  // Removing the shard keys takes the monitor out of the scanner's index.
  await transact([softDeleteWrite(monitorEntity, auth.organizationId, id, deletedAt, ['gsi2pk', 'gsi2sk'])], (codes) =>
    codes[0] === 'ConditionalCheckFailed' ? new NotFoundError(`monitor ${id} not found`) : undefined,
  );
  return { id, deletedAt };
}
