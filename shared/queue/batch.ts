import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { log } from '../http/logger.js';

/**
 * Processes the records of one SQS batch in parallel: a malformed body is dropped (logged), a
 * record whose job throws is reported so SQS delivers it again (partial batch failures; the DLQ
 * takes it after 3 receives). `remainingMs` is the invocation's time left, when known.
 */
export async function processBatch<J>(
  event: SQSEvent,
  context: Pick<Context, 'getRemainingTimeInMillis'> | undefined,
  options: { label: string; parse: (body: string) => J | undefined; describe: (job: J) => Record<string, unknown>; run: (job: J, remainingMs?: () => number) => Promise<void> },
): Promise<SQSBatchResponse> {
  const remainingMs = context?.getRemainingTimeInMillis ? () => context.getRemainingTimeInMillis() : undefined;
  const failures: { itemIdentifier: string }[] = [];
  await Promise.all(
    event.Records.map(async (record) => {
      const job = options.parse(record.body);
      if (!job) {
        log('warn', `dropping a malformed ${options.label} job`, { messageId: record.messageId });
        return;
      }
      try {
        await options.run(job, remainingMs);
      } catch (error) {
        log('error', `${options.label} job failed`, { messageId: record.messageId, ...options.describe(job), error: (error as Error).message });
        failures.push({ itemIdentifier: record.messageId });
      }
    }),
  );
  return { batchItemFailures: failures };
}
