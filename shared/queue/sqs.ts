import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { ENV, optionalEnv } from '../config/env.js';

/** A queue URL of the local runtime (`local://…`, or none): its messages stay in process. */
export function isLocalQueue(queueUrl: string | undefined): boolean {
  return !queueUrl || queueUrl.startsWith('local://');
}

const endpoint = optionalEnv(ENV.sqsEndpoint);
let client: SQSClient | undefined;

/**
 * Sends message bodies to an SQS queue, 10 per SendMessageBatch (SQS's limit), with one client
 * for every queue of the process, created on first use. A refused message fails the whole call,
 * so the caller's job is retried (consumers are idempotent).
 */
export async function sendBatches(queueUrl: string, label: string, bodies: string[], delaySeconds = 0): Promise<void> {
  client ??= new SQSClient({ ...(endpoint ? { endpoint } : {}) });
  for (let i = 0; i < bodies.length; i += 10) {
    const out = await client.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: bodies.slice(i, i + 10).map((body, j) => ({ Id: String(j), MessageBody: body, ...(delaySeconds ? { DelaySeconds: delaySeconds } : {}) })),
      }),
    );
    if (out.Failed?.length) throw new Error(`the ${label} refused ${out.Failed.length} messages`);
  }
}
