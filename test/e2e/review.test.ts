import { describe, expect, inject, it } from 'vitest';
import { runScript } from '../support/raw-http.js';
import { e2eApi, expectStatus } from '../support/typed-api.js';

const api = e2eApi();
const Z = 1.959964;

/**
 * Human review over HTTP on the local server, with the typed client: a self-hosted judge's binary
 * scores on 40 production sessions, two reviewers labelling each, the judge's agreement with them
 * (κ against a confusion-matrix computation written here) and a `calibrated` verdict.
 */
describe('human review over HTTP', () => {
  // Some 320 requests: a hang guard above the project's 60 s for a loaded machine.
  it('two reviewers label 40 sessions blind; the agreement gives κ with its interval and calibrates the judge', {
    timeout: 180_000,
  }, async () => {
    const product = await expectStatus(api.POST('/products', { body: { name: 'reviewed bot' } }), 201);
    const version = await expectStatus(api.POST('/versions', { body: { productId: product.id, name: 'v1' } }), 201);
    const metric = await expectStatus(
      api.POST('/metrics', {
        body: { name: 'resolves the issue', source: 'SELF_HOSTED', evaluationParams: ['input', 'actual_output'] },
      }),
      201,
    );
    // The judge says 1 for sessions 0–19 and 0 for the rest; people agree except on sessions 18, 19 and 20.
    const judge = (i: number) => (i < 20 ? 1 : 0);
    const human = (i: number) => (i === 18 || i === 19 ? 0 : i === 20 ? 1 : judge(i));
    const sessions: string[] = [];
    for (let i = 0; i < 40; i++) {
      const s = await expectStatus(api.POST('/sessions', { body: { versionId: version.id } }), 201);
      await expectStatus(
        api.POST('/inferenceResults', { body: { sessionId: s.id, input: `question ${i}`, output: `answer ${i}` } }),
        201,
      );
      await expectStatus(
        api.POST('/evaluations', {
          body: {
            sessionId: s.id,
            metricIds: [metric.id],
            scores: [{ metricId: metric.id, score: judge(i), reason: `JUDGE SAYS ${judge(i)}` }],
          },
        }),
        201,
      );
      sessions.push(s.id);
    }
    const queue = await expectStatus(
      api.POST('/reviewQueues', {
        body: { productId: product.id, name: 'resolution', metricIds: [metric.id], reviewersPerItem: 2 },
      }),
      201,
    );
    const added = await expectStatus(
      api.POST('/reviewQueues/{id}/items', { params: { path: { id: queue.id } }, body: { sessionIds: sessions } }),
      201,
    );
    expect(added).toMatchObject({ added: 40, skipped: 0, seed: null });

    for (const reviewer of ['ana', 'ben']) {
      for (;;) {
        const { data: task, response } = await api.POST('/reviewQueues/{id}/next', {
          params: { path: { id: queue.id } },
          body: { reviewer },
        });
        if (response.status === 204) break;
        expect(response.status).toBe(200);
        expect(JSON.stringify(task)).not.toMatch(/JUDGE SAYS|"score"/);
        const i = sessions.indexOf(task!.sessionId);
        expect(task!.turns[0]).toMatchObject({ input: `question ${i}`, output: `answer ${i}` });
        const item = await expectStatus(
          api.PUT('/reviewQueues/{id}/items/{itemId}/labels', {
            params: { path: { id: queue.id, itemId: task!.itemId } },
            body: { reviewer, labels: [{ metricId: metric.id, score: human(i) }] },
          }),
          200,
        );
        expect(item.status).toBe(reviewer === 'ana' ? 'PENDING' : 'DONE');
      }
    }
    const done = await expectStatus(api.GET('/reviewQueues/{id}', { params: { path: { id: queue.id } } }), 200);
    expect(done.counts).toEqual({ items: 40, pending: 0, done: 40 });

    const agreement = await expectStatus(
      api.GET('/metrics/{id}/agreement', {
        params: { path: { id: metric.id }, query: { productId: product.id } },
      }),
      200,
    );
    // Cohen's κ from the confusion matrix of the judge (f) against the human verdict (y ≥ 0.5).
    const n = 40;
    let both1 = 0;
    let both0 = 0;
    let f1 = 0;
    let y1 = 0;
    for (let i = 0; i < n; i++) {
      const f = judge(i);
      const y = human(i);
      if (f === 1 && y === 1) both1++;
      if (f === 0 && y === 0) both0++;
      f1 += f;
      y1 += y;
    }
    const po = (both1 + both0) / n;
    const pe = (f1 / n) * (y1 / n) + (1 - f1 / n) * (1 - y1 / n);
    const kappa = (po - pe) / (1 - pe);
    const half = Z * Math.sqrt((po * (1 - po)) / (n * (1 - pe) ** 2));
    expect(agreement).toMatchObject({ metricId: metric.id, n: 40, binary: true, spearmanInterval: expect.any(Object) });
    expect(agreement.kappa).toBeCloseTo(kappa, 12);
    expect(agreement.kappaInterval!.lower).toBeCloseTo(kappa - half, 12);
    expect(agreement.kappaInterval!.upper).toBeCloseTo(Math.min(1, kappa + half), 12);
    expect(agreement.truePositiveRate).toBeCloseTo(both1 / y1, 12);
    expect(agreement.trueNegativeRate).toBeCloseTo(both0 / (n - y1), 12);
    expect(agreement.bias).toBeCloseTo((f1 - y1) / n, 12);
    // The reviewers agree on every session: α = 1 (nominal).
    expect(agreement.reviewers).toEqual({ alpha: 1, units: 40, values: 80 });
    expect(kappa - half).toBeGreaterThanOrEqual(0.6);
    expect(agreement.verdict).toBe('calibrated');

    // Another organization sees neither the queue nor the metric's agreement.
    const other = e2eApi(await otherKey());
    expect((await other.GET('/reviewQueues/{id}', { params: { path: { id: queue.id } } })).response.status).toBe(403);
    expect(
      (await other.GET('/metrics/{id}/agreement', { params: { path: { id: metric.id }, query: {} } })).response.status,
    ).toBe(403);
    // No key: 401.
    expect((await fetch(`${inject('serverUrl')}/reviewQueues/${queue.id}`)).status).toBe(401);
  });
});

/** A key of a second organization, from the local admin command. */
async function otherKey(): Promise<string> {
  const run = await runScript('infra/local/admin.ts', ['create-org', '--name', 'Other review org', '--plan', 'PRO'], {
    TABLE_NAME: undefined,
    DATA_DIR: inject('dataDir'),
  });
  expect(run.code).toBe(0);
  return /api key \(MEMBER, shown once\): (\S+)/.exec(run.stdout)![1]!;
}
