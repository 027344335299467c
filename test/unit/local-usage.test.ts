import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startRunQueueConsumer } from '../../infra/local/run-queue.js';
import { openQueueDatabase, QUEUES_FILE } from '../../infra/local/sqlite-queues.js';
import { countedTransport, type LocalUsage, observeLocalUsage, queueOfArnName } from '../../infra/local/usage.js';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';

/** What bench:runs counts of the durable queues `npm start` uses (the in-memory ones: test/integration/usage-counting.test.ts). */

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const f of cleanups.splice(0)) f();
});

describe('local usage of the durable queues', () => {
  it('names each queue by its ARN name, and no other', () => {
    expect(queueOfArnName('run-jobs')).toBe('run');
    expect(queueOfArnName('evaluation-jobs')).toBe('evaluation');
    expect(queueOfArnName('webhook-jobs')).toBe('webhook');
    expect(queueOfArnName('generation-jobs')).toBe('generation');
    expect(queueOfArnName('other-jobs')).toBeUndefined();
  });

  it('reports the sends of a wrapped transport and the deliveries of a SQLite queue, with their deletes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'evp-usage-'));
    const db = openQueueDatabase(join(dir, QUEUES_FILE));
    cleanups.push(() => {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const seen: LocalUsage[] = [];
    cleanups.push(observeLocalUsage((u) => seen.push(u)));

    const send = countedTransport((queue, bodies, delayMs) => db.send(queue, bodies, delayMs));
    send('evaluation', ['a', 'b', 'c'], 0);
    expect(seen).toEqual([{ kind: 'send', queue: 'evaluation', bodies: ['a', 'b', 'c'] }]);

    // One invocation of three records; the consumer fails the record of 'b'.
    let calls = 0;
    const consumer = async (event: SQSEvent): Promise<SQSBatchResponse> => {
      calls++;
      const b = event.Records.find((r) => r.body === 'b');
      return { batchItemFailures: b ? [{ itemIdentifier: b.messageId }] : [] };
    };
    const running = startRunQueueConsumer(consumer, { concurrency: 1, batchSize: 10, store: db.store('evaluation') });
    cleanups.push(() => void running.stop());
    await expect.poll(() => calls).toBeGreaterThan(0);
    await running.stop();

    const deliveries = seen.filter((u) => u.kind === 'delivery');
    expect(deliveries[0]).toEqual({ kind: 'delivery', queue: 'evaluation', bodies: ['a', 'b', 'c'], deleted: 2 });
  });

  it('passes the bodies on to the transport it wraps', () => {
    const given: string[][] = [];
    countedTransport((_queue, bodies) => given.push(bodies))('run', ['x'], 0);
    expect(given).toEqual([['x']]);
  });
});
