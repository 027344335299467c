import { clock } from '../../shared/domain/common/clock.js';
import { type LocalTransport, type QueueName, useLocalTransport } from '../../shared/queue/sqs.js';
import { countedTransport } from './usage.js';

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

const queue = (): LocalQueue => ({ messages: [], onEnqueue: undefined });

/**
 * The local runtime's job queues in memory, for queue URLs that are `local://…` or unset: those of
 * the tests and of `npm start -- --in-memory` (`npm start` keeps them in SQLite, sqlite-queues.ts).
 * Importing this module installs them as the service's local transport (shared/queue/sqs.ts).
 */
export const localQueues: Record<QueueName, LocalQueue> = {
  evaluation: queue(),
  run: queue(),
  webhook: queue(),
  generation: queue(),
  voice: queue(),
};
export const localQueue = localQueues.evaluation;
export const localRunQueue = localQueues.run;
export const localWebhookQueue = localQueues.webhook;
export const localGenerationQueue = localQueues.generation;
export const localVoiceQueue = localQueues.voice;

/** When a delay is up: webhook delays on the service clock (a test that moves it makes them due), the others on the wall clock. */
const nowOf = (name: QueueName): number => (name === 'webhook' ? clock.now().getTime() : Date.now());

let counter = 0;

/** The transport that puts messages on the in-memory queues (installed when this module loads). */
export const memoryTransport: LocalTransport = countedTransport((name, bodies, delayMs) => {
  const q = localQueues[name];
  const visibleAt = nowOf(name) + delayMs;
  for (const body of bodies) q.messages.push({ id: `${name}-${++counter}`, body, receiveCount: 0, visibleAt });
  q.onEnqueue?.();
});

useLocalTransport(memoryTransport);
