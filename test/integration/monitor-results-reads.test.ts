import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newTenant } from '../support/api.js';
import { createProduct, createVersion } from '../support/fixtures.js';
import { observeRequests } from '../../shared/db/client.js';
import { readSpend } from '../../shared/db/credits.js';
import { keys } from '../../shared/db/keys.js';
import { getOrganization } from '../../shared/db/organizations.js';
import { getRecord } from '../../shared/db/catalog.js';
import { drainLocalQueue } from '../../infra/local/queue.js';
import { handler as evaluator } from '../../functions/jobs/evaluator.js';
import { runAggregator } from '../../shared/domain/monitors/aggregator.js';
import { loadFamilies, loadFamily } from '../../shared/domain/monitors/families.js';
import { cycleOf } from '../../shared/domain/accounts/organization.js';
import { monitorEntity } from '../../shared/domain/common/entities.js';

/** DynamoDB requests made while `fn` runs (every command of the shared client, in process). */
let calls: string[] = [];
let counting = false;
let unobserve: () => void;
beforeAll(() => {
  unobserve = observeRequests((operation) => {
    if (counting) calls.push(operation);
  });
});
afterAll(() => unobserve());

async function counted<T>(fn: () => Promise<T>): Promise<{ value: T; calls: string[] }> {
  calls = [];
  counting = true;
  try {
    return { value: await fn(), calls };
  } finally {
    counting = false;
  }
}

describe('GET /monitors/{id}/results reads', () => {
  it('makes at most 8 DynamoDB requests, authorizer included, with the answers of the single reads', async () => {
    const t = await newTenant({ monthlyCredits: 1000 });
    const product = await createProduct(t.api);
    const version = await createVersion(t.api, product.id);
    const groups = ['mgrp_is_json', 'mgrp_non_empty_output'];
    const m = (
      await t.api.post('/monitors', {
        productId: product.id,
        name: 'reads',
        metricGroupIds: groups,
        samplingPercentage: 100,
      })
    ).body;
    for (const [input, output] of [
      ['a', '{"ok":true}'],
      ['b', 'not json'],
      ['c', null],
    ] as const) {
      const s = (await t.api.post('/sessions', { versionId: version.id })).body;
      await t.api.post('/inferenceResults', { sessionId: s.id, input, output });
      if (output !== null) await t.api.patch(`/sessions/${s.id}`, { status: 'COMPLETED' });
    }
    await drainLocalQueue((e) => evaluator(e) as Promise<unknown>, { duplicate: false });
    await runAggregator();
    await t.api.patch(`/monitors/${m.id}`, { samplingPercentage: 50 });

    const { value: res, calls: made } = await counted(() => t.api.get(`/monitors/${m.id}/results`));
    expect(res.status).toBe(200);
    // authorizer: key lookup + organization; route: BatchGet (monitor, spend, organization),
    // buckets, sampling, scored, waiting, the families in one statement.
    expect(made.length, made.join(', ')).toBeLessThanOrEqual(8);
    expect(made.filter((c) => c === 'ExecuteStatement')).toHaveLength(1);

    // The same answers as the single reads it replaced.
    const now = new Date();
    const body = res.body;
    const spend = await readSpend(keys.monitorSpend(m.id, cycleOf(now)), { consistent: true });
    expect(body.spend).toEqual({
      spentCredits: spend.spentCredits,
      pendingCredits: spend.pendingCredits,
      capCredits: null,
      cycleStart: expect.any(String),
    });
    expect((await getOrganization(t.org.id))?.monthlyCredits).toBe(1000);
    const families = await Promise.all(groups.map((g) => loadFamily(t.org.id, g, now)));
    expect(body.metrics.map((x: { metricGroupId: string; name: string }) => [x.metricGroupId, x.name])).toEqual(
      families.map((f) => [f.groupId, f.current!.name]),
    );
    expect(body.markers.samplingChanges).toEqual([{ at: expect.any(String), samplingPercentage: 50 }]);
    expect(body.sessions.scored).toHaveLength(2);
    expect(body.sessions.waiting).toHaveLength(1);
    expect(
      body.metrics.find((x: { metricGroupId: string }) => x.metricGroupId === 'mgrp_is_json').headline,
    ).toMatchObject({ scoredSessions: 2, score: 0.5 });
  });

  it('reads several families (and the models they name) as the one-family read does', async () => {
    const t = await newTenant();
    const groups = ['mgrp_answer_relevancy', 'mgrp_is_json', 'mgrp_faithfulness', 'mgrp_unknown_group'];
    const now = new Date();
    const { value: batched, calls: made } = await counted(() => loadFamilies(t.org.id, groups, now));
    const single = await Promise.all(groups.map((g) => loadFamily(t.org.id, g, now)));
    expect(batched).toEqual(single);
    expect(batched[0]!.current?.evaluatorModelName).toBe('gpt-4o-mini');
    expect(made).toEqual(['ExecuteStatement', 'BatchGetItem']);
    // deterministic families name no model: one request
    expect((await counted(() => loadFamilies(t.org.id, ['mgrp_is_json'], now))).calls).toEqual(['ExecuteStatement']);
  });

  it("answers 404 for a deleted or unknown monitor and 403 for another organization's, as the single read did", async () => {
    const t = await newTenant();
    const other = await newTenant();
    const product = await createProduct(t.api);
    const m = (
      await t.api.post('/monitors', {
        productId: product.id,
        name: 'gone',
        metricGroupIds: ['mgrp_is_json'],
        samplingPercentage: 100,
      })
    ).body;
    expect((await other.api.get(`/monitors/${m.id}/results`)).status).toBe(403);
    await t.api.del(`/monitors/${m.id}`);
    const res = await t.api.get(`/monitors/${m.id}/results`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Not Found', message: `monitor ${m.id} not found` });
    await expect(getRecord(monitorEntity, t.org.id, m.id)).rejects.toThrow('not found');
  });
});
