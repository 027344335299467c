import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { ENV, optionalEnv } from '../config/env.js';

/** A queue URL of the local runtime (`local://…`, or none): its messages stay in process. */
export function isLocalQueue(queueUrl: string | undefined): boolean {
  return !queueUrl || queueUrl.startsWith('local://');
}

const endpoint = optionalEnv(ENV.sqsEndpoint);
let client: SQSClient | undefined;

/** The SQS client of the process, created on first send (`SQS_ENDPOINT` overrides the endpoint). */
export function sqs(): SQSClient {
  return (client ??= new SQSClient({ ...(endpoint ? { endpoint } : {}) }));
}

/** What one SendMessageBatch may carry in all (SQS's limit is 256 KiB; room kept for the request's own fields). */
export const BATCH_BYTES = 240 * 1024;

/**
 * Sends message bodies to an SQS queue, 10 per SendMessageBatch (SQS's limit) and no more than
 * BATCH_BYTES in one (run jobs carry their records: ten of them can outgrow a batch). A refused
 * message fails the whole call, so the caller's job is retried (consumers are idempotent).
 */
export async function sendBatches(queueUrl: string, label: string, bodies: string[], delaySeconds = 0): Promise<void> {
  for (const batch of batchesOf(bodies)) {
    const out = await sqs().send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: batch.map((body, j) => ({
          Id: String(j),
          MessageBody: body,
          ...(delaySeconds ? { DelaySeconds: delaySeconds } : {}),
        })),
      }),
    );
    if (out.Failed?.length) throw new Error(`the ${label} refused ${out.Failed.length} messages`);
  }
}

/** The bodies in order, in groups of at most 10 and BATCH_BYTES (a larger body goes alone). */
export function batchesOf(bodies: string[]): string[][] {
  const out: string[][] = [];
  let group: string[] = [];
  let bytes = 0;
  for (const body of bodies) {
    const size = Buffer.byteLength(body, 'utf8');
    if (group.length && (group.length === 10 || bytes + size > BATCH_BYTES)) {
      out.push(group);
      group = [];
      bytes = 0;
    }
    group.push(body);
    bytes += size;
  }
  if (group.length) out.push(group);
  return out;
}

/** SQS caps a message's delay at 15 minutes; a longer wait is taken in several hops. */
export const MAX_DELAY_SECONDS = 900;

/** The job queues of the service. */
export type QueueName = 'evaluation' | 'run' | 'webhook' | 'generation' | 'voice';

/** Takes the jobs of a `local://` queue (the local runtime's in-process queues, infra/local/queues.ts). */
export type LocalTransport = (queue: QueueName, bodies: string[], delayMs: number) => void;

let localTransport: LocalTransport | undefined;

/** Installed by the local runtime (and the tests) for queues whose URL is `local://…` or unset. */
export function useLocalTransport(transport: LocalTransport | undefined): void {
  localTransport = transport;
}

/**
 * Puts message bodies on a job queue, visible after `delayMs` (at most SQS's 15 minutes): SQS at
 * `queueUrl`, or, when that is `local://…` or unset, the local transport. A plain function the
 * queue modules call from their enqueue functions, so a bundle that never enqueues carries no SQS
 * client.
 */
export async function sendJobs(
  queue: { queueUrl: string | undefined; label: string; name: QueueName },
  bodies: string[],
  delayMs = 0,
): Promise<void> {
  if (bodies.length === 0) return;
  const delay = Math.min(MAX_DELAY_SECONDS * 1000, Math.max(0, delayMs));
  if (isLocalQueue(queue.queueUrl)) {
    if (!localTransport) throw new Error(`the ${queue.label} is local but no local runtime installed its queues`);
    localTransport(queue.name, bodies, delay);
    return;
  }
  await sendBatches(queue.queueUrl!, queue.label, bodies, Math.ceil(delay / 1000));
}
