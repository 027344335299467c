/**
 * Receives before SQS moves a message to its DLQ (`maxReceiveCount` of every queue in
 * infra/stack.ts); the local queues (infra/local/) move it to their dead letters at the same count.
 * A module of its own, with no imports: the local runtime reads it before the environment is set.
 */
export const MAX_RECEIVES = 3;
