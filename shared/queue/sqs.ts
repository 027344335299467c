import { createHash } from 'node:crypto';
import { ENV, optionalEnv } from '../config/env.js';
import { dnsSuffix } from '../aws/sigv4.js';
import { httpRequest, jsonError, sendForText, signedClient, type AwsError, type RawResponse, type SignedClient } from '../aws/signed-http.js';

/** A queue URL of the local runtime (`local://…`, or none): its messages stay in process. */
export function isLocalQueue(queueUrl: string | undefined): boolean {
  return !queueUrl || queueUrl.startsWith('local://');
}

const endpoint = optionalEnv(ENV.sqsEndpoint);
let client: SignedClient | undefined;

/**
 * Where a queue's requests go, as the SDK's SQS client sent them: `SQS_ENDPOINT` when set, else the
 * queue URL's own origin, else the regional endpoint.
 */
export function sqsEndpoint(queueUrl: string, region = process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION): string {
  if (endpoint) return endpoint;
  try {
    const { origin } = new URL(queueUrl);
    if (origin !== 'null') return origin;
  } catch {
    // not a URL: the regional endpoint
  }
  return `https://sqs.${region}.${dnsSuffix(region ?? '')}`;
}

/** A SendMessageBatch request body (AWS JSON 1.0); DelaySeconds only when there is a delay. */
export function sendMessageBatchBody(queueUrl: string, bodies: string[], delaySeconds = 0): string {
  return JSON.stringify({
    QueueUrl: queueUrl,
    Entries: bodies.map((body, j) => ({ Id: String(j), MessageBody: body, ...(delaySeconds ? { DelaySeconds: delaySeconds } : {}) })),
  });
}

/** An AWS JSON error answer as the SDK surfaces it: `name` from `__type`, `Code` the query-compatible code. */
export async function sqsError(response: Pick<RawResponse, 'statusCode' | 'headers' | 'body'>): Promise<AwsError> {
  const error = await jsonError(response);
  const [code] = (response.headers['x-amzn-query-error'] ?? '').split(';');
  return code ? Object.assign(error, { Code: code }) : error;
}

interface SendMessageBatchResult {
  Successful?: { Id: string; MessageId?: string; MD5OfMessageBody?: string }[];
  Failed?: { Id: string; Code?: string; Message?: string; SenderFault?: boolean }[];
}

/** One SendMessageBatch (up to 10 bodies), signed for `sqs`; checks the bodies' MD5s as the SDK did. */
async function sendMessageBatch(queueUrl: string, bodies: string[], delaySeconds: number): Promise<SendMessageBatchResult> {
  client ??= signedClient('sqs', { applyChecksum: true });
  const body = sendMessageBatchBody(queueUrl, bodies, delaySeconds);
  const url = new URL(`${sqsEndpoint(queueUrl).replace(/\/+$/, '')}/`);
  const headers = { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'AmazonSQS.SendMessageBatch', 'x-amzn-query-mode': 'true' };
  const res = await sendForText(client, () => httpRequest('POST', url, headers, body), sqsError);
  const out = JSON.parse(res.text) as SendMessageBatchResult;
  const corrupted = (out.Successful ?? []).filter((e) => bodies[Number(e.Id)] !== undefined && e.MD5OfMessageBody !== createHash('md5').update(bodies[Number(e.Id)]!).digest('hex'));
  if (corrupted.length) throw new Error(`Invalid MD5 checksum on messages: ${corrupted.map((e) => e.MessageId).join(', ')}`);
  return out;
}

/**
 * Sends message bodies to an SQS queue, 10 per SendMessageBatch (SQS's limit), with one signer
 * for every queue of the process, created on first use. A refused message fails the whole call,
 * so the caller's job is retried (consumers are idempotent).
 */
export async function sendBatches(queueUrl: string, label: string, bodies: string[], delaySeconds = 0): Promise<void> {
  for (let i = 0; i < bodies.length; i += 10) {
    const out = await sendMessageBatch(queueUrl, bodies.slice(i, i + 10), delaySeconds);
    if (out.Failed?.length) throw new Error(`the ${label} refused ${out.Failed.length} messages`);
  }
}

/** SQS caps a message's delay at 15 minutes; a longer wait is taken in several hops. */
export const MAX_DELAY_SECONDS = 900;

/** A message of a local queue: its body, how often it was received, and when it becomes visible. */
export interface LocalQueueMessage {
  id: string;
  body: string;
  receiveCount: number;
  /** Epoch ms (of the queue's clock) before which the message is not delivered (its delay). */
  visibleAt: number;
}

/** The local stand-in for an SQS queue: messages wait here until the local consumer (or a test) takes them. */
export interface LocalQueue {
  messages: LocalQueueMessage[];
  /** Set by the local consumer: called after each enqueue. */
  onEnqueue: (() => void) | undefined;
}

let counter = 0;

/**
 * Puts message bodies on a job queue, visible after `delayMs` (at most SQS's 15 minutes): SQS at
 * `queueUrl`, or, when that is `local://…` or unset, the in-process `local` queue, whose delays are
 * counted on `now` (default the wall clock). A plain function the queue modules call from their
 * enqueue functions, so a bundle that never enqueues carries no SQS client.
 */
export async function sendJobs(
  queue: { queueUrl: string | undefined; label: string; idPrefix: string; local: LocalQueue; now?: () => number },
  bodies: string[],
  delayMs = 0,
): Promise<void> {
  if (bodies.length === 0) return;
  const delay = Math.min(MAX_DELAY_SECONDS * 1000, Math.max(0, delayMs));
  if (isLocalQueue(queue.queueUrl)) {
    const visibleAt = (queue.now ?? Date.now)() + delay;
    for (const body of bodies) queue.local.messages.push({ id: `${queue.idPrefix}-${++counter}`, body, receiveCount: 0, visibleAt });
    queue.local.onEnqueue?.();
    return;
  }
  await sendBatches(queue.queueUrl!, queue.label, bodies, Math.ceil(delay / 1000));
}
