import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { transact } from '../../shared/db/catalog.js';
import { tableName } from '../../shared/db/client.js';
import { readSpend, reserveItem } from '../../shared/db/credits.js';
import { getEndpointSecrets } from '../../shared/db/endpoint-secrets.js';
import { keys } from '../../shared/db/keys.js';
import {
  deleteDirtyMarkerIfUntouched,
  getEvaluationGuard,
  getQueuedEntry,
  getWaitingEntry,
  monitorRange,
  putBucket,
  setMonitorStatusIf,
  touchWaitingEntry,
} from '../../shared/db/monitors.js';
import {
  getSessionWithInternals,
  requeueFailedEvaluation,
  softDeleteSpan,
  updateTurnFields,
} from '../../shared/db/sessions.js';
import { reserveCaseIndex } from '../../shared/db/tests.js';
import { versionIdHoldingName } from '../../shared/db/versions.js';
import { ConflictError, NotFoundError } from '../../shared/errors.js';
import type { Evaluation } from '../../shared/schemas/sessions.js';

const uid = () => randomUUID().slice(0, 8);

describe('repositories translate storage outcomes for the use cases', () => {
  it('reads absent items as undefined or zeros, never as a storage error', async () => {
    const id = uid();
    expect(await getEndpointSecrets(`org_${id}`, `econ_${id}`)).toEqual({ authToken: undefined, password: undefined });
    expect(await versionIdHoldingName(`prod_${id}`, 'v1')).toBeUndefined();
    expect(await getSessionWithInternals(`sess_${id}`)).toBeUndefined();
    expect(await getWaitingEntry(`mon_${id}`, `sess_${id}`)).toBeUndefined();
    expect(await getQueuedEntry(`mon_${id}`, `sess_${id}`)).toBeUndefined();
    expect(await getEvaluationGuard(`mon_${id}`, `sess_${id}`, `grp_${id}`)).toBeUndefined();
    expect(await readSpend(keys.monitorSpend(`mon_${id}`, '2026-11'), { consistent: true })).toEqual({
      spentCredits: 0,
      pendingCredits: 0,
      used: 0,
    });
  });

  it('reads a spend item written by a reservation', async () => {
    const key = keys.monitorSpend(`mon_${uid()}`, '2026-11');
    await transact([reserveItem(key, 3, 10)]);
    expect(await readSpend(key, { consistent: true })).toEqual({ spentCredits: 0, pendingCredits: 3, used: 3 });
  });

  it('turns failed conditions into the answers the callers need', async () => {
    const id = uid();
    await expect(softDeleteSpan(`span_${id}`, new Date().toISOString())).resolves.toBe(false);
    await expect(touchWaitingEntry(`mon_${id}`, `sess_${id}`, new Date().toISOString())).resolves.toBe(false);
    await expect(
      setMonitorStatusIf({ id: `mon_${id}`, organizationId: `org_${id}`, status: 'ACTIVE' }, 'FAILING'),
    ).resolves.toBe(false);
    await expect(reserveCaseIndex(`org_${id}`, `test_${id}`)).rejects.toThrow(
      new NotFoundError(`test test_${id} not found`),
    );
    await expect(
      updateTurnFields({ id: `inf_${id}`, sessionId: `sess_${id}`, index: 1 }, { output: 'x' }),
    ).rejects.toBeInstanceOf(NotFoundError);
    const evaluation = { id: `eval_${id}`, sessionId: `sess_${id}`, status: 'PENDING' } as Evaluation;
    await expect(requeueFailedEvaluation(evaluation)).rejects.toBeInstanceOf(ConflictError);
  });

  it('deletes a dirty marker only while it is untouched, and overwrites buckets', async () => {
    const monitorId = `mon_${uid()}`;
    const key = keys.dirtyBucket(0, monitorId, '2026-11-20', 'grp');
    await transact([{ Put: { TableName: tableName, Item: { ...key, entity: 'DIRTY', touchedAt: 't2' } } }]);
    expect(await deleteDirtyMarkerIfUntouched({ ...key, touchedAt: 't1' })).toBe(false);
    expect(await deleteDirtyMarkerIfUntouched({ ...key, touchedAt: 't2' })).toBe(true);

    const sums = { n: 2, sw: 2, swx: 1.5, sw2: 2, sw2x: 1.5, sw2x2: 1.25 };
    await putBucket(monitorId, '2026-11-20', 'grp', sums, '2026-11-20T10:00:00.000Z');
    await putBucket(monitorId, '2026-11-20', 'grp', { ...sums, n: 3 }, '2026-11-20T10:05:00.000Z');
    const buckets = await monitorRange(monitorId, 'BUCKET#2026-11-20', 'BUCKET#2026-11-20~');
    expect(buckets).toHaveLength(1);
    expect(buckets[0]).toMatchObject({
      n: 3,
      day: '2026-11-20',
      groupId: 'grp',
      updatedAt: '2026-11-20T10:05:00.000Z',
    });
  });
});
