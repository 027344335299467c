/**
 * `npm run demo` (while `npm start` runs): creates a demo product and a monitor on deterministic
 * metrics, plays a few hundred production sessions over the last 14 days (the clock is moved
 * back for each day), runs the evaluator, scanner and aggregator, and prints the monitor's results
 * as the HTTP route answers them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadCliEnv } from './cli-env.js';
import { exitWith, UsageError } from './cli.js';

const target = await loadCliEnv().catch(exitWith);
if (target.kind !== 'local') exitWith(new UsageError('npm run demo works against the local runtime only: unset TABLE_NAME and run `npm start`'));
const { url: apiUrl, dataDir } = target;
const key = readFileSync(join(dataDir, 'demo-api-key'), 'utf8').trim();
const { resolveCaller } = await import('../../shared/auth/authorize.js');
const auth = await resolveCaller(`Bearer ${key}`);
const { clock } = await import('../../shared/domain/common/clock.js');
const { createProduct } = await import('../../shared/domain/catalog/products.js');
const { createVersion } = await import('../../shared/domain/catalog/versions.js');
const { createMonitor } = await import('../../shared/domain/monitors/monitors.js');
const { createSession, updateSession } = await import('../../shared/domain/sessions/sessions.js');
const { createTurns } = await import('../../shared/domain/sessions/turns.js');
const { drainLocalQueue } = await import('./queue.js');
const { handler: evaluator } = await import('../../functions/jobs/evaluator.js');
const { runAggregator } = await import('../../shared/domain/monitors/aggregator.js');
const { runScanner } = await import('../../shared/domain/monitors/scanner.js');

const realNow = clock.now;
const product = await createProduct(auth, { name: `Demo support bot ${new Date().toISOString().slice(0, 16)}`, description: 'Answers order and billing questions' });
const version = await createVersion(auth, { productId: product.id, name: 'v1' });
const monitor = await createMonitor(auth, {
  productId: product.id,
  name: 'Production quality',
  metricGroupIds: ['mgrp_is_json', 'mgrp_non_empty_output', 'mgrp_no_pii'],
  samplingPercentage: 60,
  excludeQuery: 'test message',
  excludeTarget: 'INPUT',
});
console.log(`product ${product.id}, monitor ${monitor.id}`);

const questions = ['Where is my order?', 'I want a refund', 'Can I change my address?', 'test message, please ignore', 'What is your phone number?'];
const answers = (day: number, i: number) =>
  [
    `{"status":"shipped","day":${day}}`,
    'Your refund is on its way.',
    i % 7 === 0 ? '' : 'Sure, I updated it.',
    'ok',
    day % 3 === 0 ? 'Call us at +1 415-555-0123.' : 'Use the contact form on our site.',
  ][i % 5]!;

let created = 0;
for (let day = 13; day >= 0; day--) {
  const base = Date.now() - day * 86_400_000 - 2 * 3_600_000;
  const perDay = 20 + ((day * 7) % 11);
  for (let i = 0; i < perDay; i++) {
    const at = new Date(base + i * 60_000);
    clock.now = () => at;
    const session = await createSession(auth, { versionId: version.id, customId: `demo-${day}-${i}` });
    await createTurns(auth, {
      sessionId: session.id,
      messages: [
        { role: 'user', content: questions[i % questions.length]! },
        { role: 'assistant', content: answers(day, i) || ' ' },
      ],
    });
    await updateSession(auth, session.id, { status: 'COMPLETED' });
    await drainLocalQueue((event) => evaluator(event) as Promise<unknown>);
    created++;
  }
}
clock.now = realNow;
await runScanner();
await runAggregator();
console.log(`${created} production sessions over 14 days`);
const res = await fetch(`${apiUrl}/monitors/${monitor.id}/results?days=14`, { headers: { authorization: `Bearer ${key}` } });
const results = (await res.json()) as { metrics: { name: string; headline: unknown; buckets: { bucket: string; scoredSessions: number; score: number | null }[] }[]; worstMetric: unknown; spend: unknown };
for (const m of results.metrics) {
  console.log(`\n${m.name}: ${JSON.stringify(m.headline)}`);
  console.log(m.buckets.map((b) => `  ${b.bucket.slice(0, 10)}  n=${String(b.scoredSessions).padStart(3)}  score=${b.score === null ? '-' : b.score.toFixed(3)}`).join('\n'));
}
console.log(`\nworstMetric: ${JSON.stringify(results.worstMetric)}`);
console.log(`spend: ${JSON.stringify(results.spend)}`);
console.log(`\nThe full answer: curl -H "Authorization: Bearer ${key}" "${apiUrl}/monitors/${monitor.id}/results?days=14"`);
