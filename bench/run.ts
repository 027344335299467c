/**
 * `npm run bench`: the cost of GET /monitors/{id}/results as a monitor grows. Starts an in-memory
 * local runtime, loads 1,000 and then 100,000 scored sessions into one monitor (score records,
 * spread over 14 days, then the aggregator), and times the route over HTTP for 50 calls at each
 * size. Prints both medians, their ratio (the goal is near 1.0) and DynamoDB calls per request.
 */
import { startLocalRuntime } from '../infra/local/runtime.js';
import { freePort } from '../infra/local/services.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const runtime = await startLocalRuntime({
  port: await freePort(),
  inMemory: true,
  dataDir: mkdtempSync(join(tmpdir(), 'evp-bench-')),
  scanIntervalSeconds: 0,
  quiet: true,
});
try {
  const { observeRequests } = await import('../shared/db/client.js');
  let calls = 0;
  observeRequests(() => calls++);

  const { resolveCaller } = await import('../shared/auth/authorize.js');
  const auth = await resolveCaller(`Bearer ${runtime.demoApiKey}`);
  const { createProduct } = await import('../shared/domain/catalog/products.js');
  const { createMonitor } = await import('../shared/domain/monitors/monitors.js');
  const { batchPut } = await import('../shared/db/batch.js');
  const { keys } = await import('../shared/db/keys.js');
  const { shardOf } = await import('../shared/db/monitors.js');
  const { runAggregator } = await import('../shared/domain/monitors/aggregator.js');

  const product = await createProduct(auth, { name: 'bench' });
  const groups = ['mgrp_is_json', 'mgrp_non_empty_output'];
  const monitor = await createMonitor(auth, {
    productId: product.id,
    name: 'bench',
    metricGroupIds: groups,
    samplingPercentage: 50,
  });

  let loaded = 0;
  async function loadTo(total: number) {
    const items: Record<string, unknown>[] = [];
    for (let i = loaded; i < total; i++) {
      const sessionId = `sess_bench${String(i).padStart(8, '0')}`;
      const at = new Date(Date.now() - (i % 14) * 86_400_000 - (i % 3600) * 1000).toISOString();
      const day = at.slice(0, 10);
      for (const [g, groupId] of groups.entries()) {
        const score = (i * (g + 3)) % 7 === 0 ? 0 : 1;
        items.push({
          ...keys.monitorScore(monitor.id, day, groupId, sessionId),
          entity: 'SCORE',
          score,
          weight: 2,
          evaluatedAt: at,
          metricId: groupId.replace('mgrp_', 'met_'),
        });
        items.push({
          ...keys.dirtyBucket(shardOf(monitor.id), monitor.id, day, groupId),
          entity: 'DIRTY',
          monitorId: monitor.id,
          day,
          groupId,
          touchedAt: `${at}#${loaded}`,
        });
      }
      items.push({
        ...keys.monitorScored(monitor.id, sessionId),
        ...keys.monitorScoredByTime(monitor.id, at, sessionId),
        entity: 'SCORED',
        sessionId,
        evaluatedAt: at,
        settledAtTurn: 2,
        description: `question ${i}`,
      });
    }
    const started = Date.now();
    await batchPut(items, 16);
    await runAggregator();
    loaded = total;
    console.log(
      `loaded ${total} scored sessions (${items.length} items in ${((Date.now() - started) / 1000).toFixed(1)} s)`,
    );
  }

  async function time(label: string): Promise<number> {
    const durations: number[] = [];
    let perRequest = 0;
    for (let i = 0; i < 50; i++) {
      const before = calls;
      const started = performance.now();
      const res = await fetch(`${runtime.url}/monitors/${monitor.id}/results?days=14`, {
        headers: { authorization: `Bearer ${runtime.demoApiKey}` },
      });
      const body = (await res.json()) as { metrics: { headline: { scoredSessions: number } }[] };
      durations.push(performance.now() - started);
      perRequest = calls - before;
      if (i === 0) console.log(`${label}: headline scoredSessions = ${body.metrics[0]!.headline.scoredSessions}`);
    }
    durations.sort((a, b) => a - b);
    const median = (durations[24]! + durations[25]!) / 2;
    console.log(
      `${label}: median ${median.toFixed(1)} ms over 50 calls; ${perRequest} DynamoDB calls per request (authorizer included)`,
    );
    return median;
  }

  await loadTo(1_000);
  const small = await time('1,000 sessions');
  await loadTo(100_000);
  const large = await time('100,000 sessions');
  console.log(`\nratio (100,000 / 1,000): ${(large / small).toFixed(2)}`);
} finally {
  await runtime.stop();
}
