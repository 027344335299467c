/**
 * Leases (a generation step's, a webhook attempt's claim) keep other workers off a job while its
 * holder works on it, for longer than the holder can live; a job delivered again meanwhile leaves
 * it alone. On AWS the queue's visibility timeout is longer still, so the job's next delivery
 * finds the lease of a worker that died expired. The local runtime delivers again at once what a
 * stopped runtime left in flight (infra/local/sqlite-queues.ts), and knows more: one runtime runs
 * on a data directory and its DynamoDB Local, so every lease taken before it started was taken by
 * a process that is gone. It declares those leases void as it starts; elsewhere none is.
 */
let voidBefore = 0;

/** Leases taken before `epochMs` are free from now on (the local runtime, as it starts on its own table). */
export function voidLeasesTakenBefore(epochMs: number): void {
  voidBefore = epochMs;
}

/**
 * The bound below which a stored lease (its end: taken + `leaseMs`) is free at `now`: it ended, or
 * it was taken before the leases were declared void.
 */
export function leaseFreeBelow(now: number, leaseMs: number): number {
  return Math.max(now, voidBefore + leaseMs);
}
