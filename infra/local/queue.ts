import { localQueue } from './queues.js';
import type { SQSEvent, SQSBatchResponse } from 'aws-lambda';

/** Messages that failed three receives (the local stand-in for the DLQ). */
export const deadLetters: { id: string; body: string }[] = [];

/**
 * Delivers the local queue to the evaluator function in batches of up to 10, as the SQS event
 * source would: failed records come back until their third receive, then go to `deadLetters`.
 * Resolves when the queue is empty.
 */
export async function drainLocalQueue(
  evaluator: (event: SQSEvent) => Promise<unknown>,
  options: { duplicate?: boolean } = {},
): Promise<number> {
  let delivered = 0;
  while (localQueue.messages.length > 0) {
    const batch = localQueue.messages.splice(0, 10);
    for (const m of batch) m.receiveCount++;
    const records = batch.flatMap((m) => {
      const record = {
        messageId: m.id,
        receiptHandle: m.id,
        body: m.body,
        attributes: {
          ApproximateReceiveCount: String(m.receiveCount),
          SentTimestamp: String(Date.now()),
          SenderId: 'local',
          ApproximateFirstReceiveTimestamp: String(Date.now()),
        },
        messageAttributes: {},
        md5OfBody: '',
        eventSource: 'aws:sqs',
        eventSourceARN: 'arn:aws:sqs:local:000000000000:evaluation-jobs',
        awsRegion: 'local',
      };
      // At-least-once delivery: a test may ask for every message twice.
      return options.duplicate ? [record, { ...record, messageId: `${m.id}-dup` }] : [record];
    });
    let failed = new Set<string>();
    try {
      const out = (await evaluator({ Records: records } as SQSEvent)) as SQSBatchResponse | undefined;
      failed = new Set((out?.batchItemFailures ?? []).map((f) => f.itemIdentifier.replace(/-dup$/, '')));
    } catch {
      failed = new Set(batch.map((m) => m.id));
    }
    delivered += batch.length;
    for (const m of batch) {
      if (!failed.has(m.id)) continue;
      if (m.receiveCount >= 3) deadLetters.push({ id: m.id, body: m.body });
      else localQueue.messages.push(m);
    }
  }
  return delivered;
}
