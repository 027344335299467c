import { localWebhookQueue } from './queues.js';
import { clock } from '../../shared/domain/common/clock.js';
import type { LocalDelayQueue } from './run-queue.js';

/** Delivery jobs that failed three receives (the local stand-in for the webhook DLQ). */
export const webhookDeadLetters: { id: string; body: string }[] = [];

/** The local webhook queue for the consumer and drain of run-queue.ts: its delays run on the service clock. */
export const webhookDelayQueue: LocalDelayQueue = {
  queue: localWebhookQueue,
  deadLetters: webhookDeadLetters,
  now: () => clock.now().getTime(),
  arnName: 'webhook-jobs',
};
