import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { getRecord } from '../../db/catalog.js';
import { leaseFreeBelow } from '../../db/leases.js';
import {
  abandonDelivery,
  attemptUpdate,
  claimAttempt,
  commitOnce,
  DELIVERY_SHARDS,
  disableFailingEndpoint,
  dueDeliveries,
  type DueDelivery,
  endpointHealthUpdate,
  getDelivery,
  getWebhookSecret,
  markDeliveryQueued,
} from '../../db/webhooks.js';
import { logger, withLogKeys } from '../../observability/logger.js';
import { countMetric, METRIC } from '../../observability/metrics.js';
import { enqueueDeliveries, parseDeliveryJob, type DeliveryJob } from '../../queue/webhook-queue.js';
import { MAX_DELAY_SECONDS } from '../../queue/run-queue.js';
import type { DeliveryAttempt, Webhook } from '../../schemas/webhooks.js';
import { clock } from '../common/clock.js';
import { webhookEntity } from '../common/entities.js';
import { AddressNotAllowedError, privateNetworksAllowed, resolveChecked } from '../../outbound/guard.js';
import { USER_AGENT } from '../../outbound/user-agent.js';
import { sendOnce } from '../../outbound/send.js';
import { signedHeaders } from './signing.js';

/**
 * Delivery of webhook messages: one attempt per job, through the network guard of
 * runs (shared/domain/runs/caller), 10 s per attempt; a non-2xx answer, a timeout or a refused address is retried after 5 s,
 * 5 min, 30 min, 2 h, 5 h and 10 h, then the delivery gives up. Every attempt is kept on the
 * delivery. Waits up to SQS's 15-minute delay go back on the queue with that delay; longer ones
 * wait on the due index for the sweep (every minute). An endpoint whose attempts have all failed
 * for 5 days is disabled with its reason.
 */

export const RETRY_DELAYS_MS = [5_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 5 * 3_600_000, 10 * 3_600_000] as const;
export const ATTEMPT_TIMEOUT_MS = 10_000;
export const DISABLE_AFTER_MS = 5 * 86_400_000;
/** How long a worker holds an attempt (the send's 10 s and the bookkeeping, with room). */
const CLAIM_MS = 60_000;
/** A job that arrives this early (SQS rounds delays to seconds) still attempts. */
const EARLY_TOLERANCE_MS = 1_000;
/** A queued attempt still due this long after its time was lost: the sweep sends it again. */
const LOST_AFTER_MS = 5 * 60_000;
const MAX_QUEUE_DELAY_MS = MAX_DELAY_SECONDS * 1000;
const ERROR_BODY_CHARS = 200;

/** The wait before the next attempt after failed attempt `attempt` (1-based); undefined: give up. */
export function retryDelay(attempt: number): number | undefined {
  return RETRY_DELAYS_MS[attempt - 1];
}

type Sent = Omit<DeliveryAttempt, 'attempt' | 'at'>;

/** One POST of a signed message to the endpoint's checked address; never throws. */
export async function postMessage(
  url: string,
  secret: string,
  messageId: string,
  body: string,
  at: Date,
): Promise<Sent> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return { responseCode: null, durationMs: 0, ok: false, error: 'the url is not an absolute URL' };
  }
  let addresses: Awaited<ReturnType<typeof resolveChecked>>;
  try {
    addresses = await resolveChecked(target.hostname, privateNetworksAllowed());
  } catch (error) {
    const message =
      error instanceof AddressNotAllowedError ? error.message : `the host ${target.hostname} could not be resolved`;
    return { responseCode: null, durationMs: elapsed(), ok: false, error: message };
  }
  const headers = {
    'Content-Type': 'application/json',
    'User-Agent': USER_AGENT,
    ...signedHeaders(secret, messageId, at, body),
  };
  const outcome = await sendOnce({ method: 'POST', url: target, headers, body }, addresses, ATTEMPT_TIMEOUT_MS);
  switch (outcome.kind) {
    case 'answer':
    case 'too_large': {
      const ok = outcome.status >= 200 && outcome.status < 300;
      const text = outcome.kind === 'answer' ? outcome.body.trim().slice(0, ERROR_BODY_CHARS) : '';
      return {
        responseCode: outcome.status,
        durationMs: outcome.durationMs,
        ok,
        error: ok ? null : `the endpoint answered ${outcome.status}${text ? `: ${text}` : ''}`,
      };
    }
    case 'timeout':
      return {
        responseCode: null,
        durationMs: outcome.durationMs,
        ok: false,
        error: `the endpoint did not answer within ${ATTEMPT_TIMEOUT_MS / 1000} s`,
      };
    case 'network':
      return {
        responseCode: null,
        durationMs: outcome.durationMs,
        ok: false,
        error: `the connection failed: ${outcome.error}`,
      };
    case 'aborted':
      return { responseCode: null, durationMs: outcome.durationMs, ok: false, error: 'the attempt was aborted' };
  }
}

/**
 * One delivery job: attempt `job.attempt` of its delivery, once. A redelivered or duplicate job
 * finds the attempt made (or held by another worker) and does nothing; a job that arrives before
 * its time goes back to wait.
 */
export async function attemptDelivery(job: DeliveryJob): Promise<void> {
  const delivery = await getDelivery(job.webhookId, job.deliveryId);
  if (delivery?.status !== 'PENDING' || delivery.attemptCount !== job.attempt - 1) return;
  const now = clock.now();
  const wait = delivery.nextAttemptAt ? Date.parse(delivery.nextAttemptAt) - now.getTime() : 0;
  if (wait > EARLY_TOLERANCE_MS) {
    if (wait <= MAX_QUEUE_DELAY_MS) await enqueueDeliveries([job], wait);
    return;
  }
  const webhook = await getRecord<Webhook>(webhookEntity, job.organizationId, job.webhookId, {
    includeDeleted: true,
  }).catch(() => undefined);
  if (!webhook || webhook.deletedAt) return abandonDelivery(job.webhookId, job.deliveryId, 'the webhook was deleted');
  if (webhook.status === 'DISABLED' && delivery.type !== 'ping') {
    return abandonDelivery(
      job.webhookId,
      job.deliveryId,
      `the webhook is disabled: ${webhook.disabledReason ?? 'disabled'}`,
    );
  }
  const at = now.toISOString();
  if (
    !(await claimAttempt(
      job.webhookId,
      job.deliveryId,
      job.attempt,
      at,
      new Date(now.getTime() + CLAIM_MS).toISOString(),
    ))
  )
    return;

  const secret = await getWebhookSecret(job.organizationId, job.webhookId);
  const sent: Sent = secret
    ? await postMessage(webhook.url, secret, delivery.id, delivery.body, now)
    : { responseCode: null, durationMs: 0, ok: false, error: 'the webhook has no signing secret' };
  const retryIn = sent.ok ? undefined : retryDelay(job.attempt);
  const nextAttemptAt = retryIn === undefined ? null : new Date(now.getTime() + retryIn).toISOString();
  const queued = retryIn !== undefined && retryIn <= MAX_QUEUE_DELAY_MS;
  const recorded = await commitOnce([
    attemptUpdate(delivery, {
      attempt: { attempt: job.attempt, at, ...sent },
      status: sent.ok ? 'SUCCEEDED' : nextAttemptAt ? 'PENDING' : 'FAILED',
      nextAttemptAt,
      queued,
    }),
    endpointHealthUpdate(job.organizationId, job.webhookId, sent.ok, at),
  ]);
  if (!recorded) return;
  // Counted once per attempt, when its outcome is recorded (a duplicate job records nothing).
  countMetric(sent.ok ? METRIC.WebhookDeliveriesSucceeded : METRIC.WebhookDeliveriesFailed);
  logger.debug('webhook delivery attempt', {
    attempt: job.attempt,
    responseCode: sent.responseCode,
    ok: sent.ok,
    durationMs: sent.durationMs,
    retryInMs: retryIn,
  });
  if (!sent.ok) await disableWhenFailingTooLong(webhook, now, sent.error);
  if (queued) await enqueueDeliveries([{ ...job, attempt: job.attempt + 1 }], retryIn);
}

/** Disables the endpoint when every attempt since `failingSince` failed and that is 5 days ago. */
async function disableWhenFailingTooLong(webhook: Webhook, now: Date, lastError: string | null): Promise<void> {
  const since = webhook.failingSince ?? now.toISOString();
  const cutoff = new Date(now.getTime() - DISABLE_AFTER_MS).toISOString();
  if (since > cutoff || webhook.status !== 'ENABLED') return;
  const reason = `every delivery attempt since ${since} failed (5 days or more); the last one: ${lastError ?? 'failed'}. Fix the endpoint, then PATCH status ENABLED`;
  if (await disableFailingEndpoint(webhook.organizationId, webhook.id, cutoff, reason, now.toISOString())) {
    logger.warn('webhook disabled', { webhookId: webhook.id, since });
  }
}

/**
 * The sweep (every minute): puts on the queue every pending attempt that is due and is not there
 * already (its wait was longer than the queue's 15-minute delay), or whose queued job was lost
 * (still due 5 minutes after its time, and no worker holds it). `only` narrows it to some
 * deliveries (tests that share a table with others).
 */
export async function sweepDueDeliveries(
  now: Date = clock.now(),
  only: (delivery: DueDelivery) => boolean = () => true,
): Promise<{ enqueued: number }> {
  const nowIso = now.toISOString();
  const lostBefore = new Date(now.getTime() - LOST_AFTER_MS).toISOString();
  // A claim that ended, or one taken by a runtime that stopped, holds nothing.
  const claimFreeBelow = new Date(leaseFreeBelow(now.getTime(), CLAIM_MS)).toISOString();
  let enqueued = 0;
  for (let shard = 0; shard < DELIVERY_SHARDS; shard++) {
    const due = (await dueDeliveries(shard, nowIso)).filter(
      (d) => only(d) && (!d.queued || d.nextAttemptAt < lostBefore) && !(d.claimUntil && d.claimUntil > claimFreeBelow),
    );
    for (const d of due) {
      await enqueueDeliveries([
        {
          kind: 'deliver',
          organizationId: d.organizationId,
          webhookId: d.webhookId,
          deliveryId: d.deliveryId,
          attempt: d.attempt,
        },
      ]);
      await markDeliveryQueued(d.webhookId, d.deliveryId, d.attempt);
      enqueued++;
    }
  }
  return { enqueued };
}

/** One SQS batch of delivery jobs, in parallel; a failed record is reported for redelivery. */
export async function processDeliveryBatch(event: SQSEvent): Promise<SQSBatchResponse> {
  const failures: { itemIdentifier: string }[] = [];
  await Promise.all(
    event.Records.map(async (record) => {
      const job = parseDeliveryJob(record.body);
      if (!job) {
        logger.warn('dropping a malformed delivery job', { messageId: record.messageId });
        return;
      }
      const { organizationId, webhookId, deliveryId } = job;
      const keys = { messageId: record.messageId, organizationId, webhookId, deliveryId };
      await withLogKeys(keys, async () => {
        try {
          await attemptDelivery(job);
        } catch (error) {
          logger.error('delivery job failed', { attempt: job.attempt, error: (error as Error).message });
          failures.push({ itemIdentifier: record.messageId });
        }
      });
    }),
  );
  return { batchItemFailures: failures };
}
