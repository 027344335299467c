import { AsyncLocalStorage } from 'node:async_hooks';
import type { Context } from 'aws-lambda';
import { reportUsage, usageObserved } from './usage.js';

/**
 * The local runtime runs many invocations at once in one process (API requests, run steps,
 * deliveries), as a Lambda Managed Instance does. Powertools keeps each invocation's state (its
 * Lambda context, appended log keys, stored metrics) apart in the Lambda runtime's InvokeStore
 * when AWS_LAMBDA_MAX_CONCURRENCY is set; without it, one invocation would log with another's
 * request id and clear its keys. This is that store, for the part Powertools and the AWS SDK read.
 */

type Store = Record<string | symbol, unknown>;

const REQUEST_ID = Symbol.for('_AWS_LAMBDA_REQUEST_ID');
const invocations = new AsyncLocalStorage<Store>();

const invokeStore = {
  getContext: (): Store | undefined => invocations.getStore(),
  hasContext: (): boolean => invocations.getStore() !== undefined,
  get: (key: string | symbol): unknown => invocations.getStore()?.[key],
  set: (key: string | symbol, value: unknown): void => {
    const store = invocations.getStore();
    if (!store) throw new Error('No context available');
    store[key] = value;
  },
  run: <T>(context: Store, fn: () => T): T => invocations.run(context, fn),
  getRequestId: (): string => String(invocations.getStore()?.[REQUEST_ID] ?? '-'),
  // No X-Ray and no trace context locally.
  getXRayTraceId: (): undefined => undefined,
  getTenantId: (): undefined => undefined,
  getTraceparent: (): undefined => undefined,
  getTracestate: (): undefined => undefined,
  getBaggage: (): undefined => undefined,
};

const lambdaGlobal = globalThis as unknown as { awslambda?: { InvokeStore?: unknown } };
lambdaGlobal.awslambda ??= {};
lambdaGlobal.awslambda.InvokeStore = invokeStore;
process.env.AWS_LAMBDA_MAX_CONCURRENCY ??= '64';

/**
 * Runs one invocation of a handler (`handler`: its module under `functions/`) in its own invocation
 * scope; a listener of the local usage (usage.ts) hears of it and how long it ran.
 */
export function invoke<T>(context: Context, handler: string, fn: () => Promise<T>): Promise<T> {
  const run = () => invokeStore.run({ [REQUEST_ID]: context.awsRequestId }, fn);
  if (!usageObserved()) return run();
  const started = performance.now();
  return run().finally(() => {
    if (usageObserved()) reportUsage({ kind: 'invocation', handler, ms: performance.now() - started });
  });
}
