import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { logger, withLogKeys } from '../observability/logger.js';
import { countMetric, METRIC } from '../observability/metrics.js';
import { MAX_RECEIVES } from './receives.js';

export { MAX_RECEIVES };

/** How a `giveUp` names what failed on every receive, with the last cause: `step 2 failed 3 times (…)`. */
export const failedEveryReceive = (what: string, error: Error): string =>
  `${what} failed ${MAX_RECEIVES} times (${error.message})`;

/**
 * Processes the records of one SQS batch in parallel: a malformed body is dropped (logged), a
 * record whose job throws is reported so SQS delivers it again (partial batch failures; the DLQ
 * takes it after 3 receives). `remainingMs` is the invocation's time left, when known.
 *
 * `giveUp`, when given, settles a job that threw on its last receive (a record the DLQ would take
 * otherwise), so what it worked on ends in a state a user can see rather than waiting forever; the
 * record goes to the DLQ only when `giveUp` throws too.
 *
 * Every line logged while a record is handled carries its message id and what `describe` says of
 * its job (the run, session, test, monitor or evaluation it works on).
 */
export async function processBatch<J>(
  event: SQSEvent,
  context: Pick<Context, 'getRemainingTimeInMillis'> | undefined,
  options: {
    label: string;
    parse: (body: string) => J | undefined;
    describe: (job: J) => Record<string, unknown>;
    /** `receives`: how many times SQS has delivered this record (1 the first time). */
    run: (job: J, remainingMs: (() => number) | undefined, receives: number) => Promise<void>;
    giveUp?: (job: J, error: Error) => Promise<void>;
    /** One record after the other instead of all at once. */
    sequential?: boolean;
  },
): Promise<SQSBatchResponse> {
  const remainingMs = context?.getRemainingTimeInMillis ? () => context.getRemainingTimeInMillis() : undefined;
  const failures: { itemIdentifier: string }[] = [];
  const handle = async (record: SQSEvent['Records'][number]): Promise<void> => {
    const job = options.parse(record.body);
    if (!job) {
      logger.warn(`dropping a malformed ${options.label} job`, { messageId: record.messageId });
      return;
    }
    await withLogKeys({ messageId: record.messageId, ...options.describe(job) }, async () => {
      const receives = Number(record.attributes?.ApproximateReceiveCount ?? 0);
      try {
        await options.run(job, remainingMs, receives);
      } catch (error) {
        logger.error(`${options.label} job failed`, { error: (error as Error).message });
        if (options.giveUp && receives >= MAX_RECEIVES) {
          try {
            await options.giveUp(job, error as Error);
            logger.warn(`${options.label} job given up after ${receives} receives`);
            countMetric(METRIC.JobsGivenUp);
            return;
          } catch (giveUpError) {
            logger.error(`${options.label} job could not be settled`, { error: (giveUpError as Error).message });
          }
        }
        failures.push({ itemIdentifier: record.messageId });
      }
    });
  };
  if (options.sequential) for (const record of event.Records) await handle(record);
  else await Promise.all(event.Records.map(handle));
  return { batchItemFailures: failures };
}
