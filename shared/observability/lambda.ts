import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logger } from './logger.js';
import { addedMiddlewares, type AnyMiddleware } from './per-invocation.js';

/**
 * The Powertools middlewares of every function, first in its Middy stack: the Lambda context
 * (request id, cold start, function name) on every line, appended keys cleared at the end of the
 * invocation, the event never logged (it carries the caller's API key); then what the function's
 * modules add to every invocation (./per-invocation.ts): the metrics flush, once per invocation
 * after the function's own `after` steps, in a function whose code counts metrics.
 */
export function observability(): AnyMiddleware[] {
  return [injectLambdaContext(logger, { resetKeys: true, logEvent: false }) as AnyMiddleware, addedMiddlewares];
}

/**
 * A handler that is not an API route (a job, the authorizer) with the same observability. Jobs
 * watch their own deadline (`getRemainingTimeInMillis`), so Middy's early timeout, which would
 * fail the whole batch, is off. Called without a Lambda context (tests call handlers directly)
 * there is no invocation to observe, and the handler runs as it is.
 */
export function observedHandler<E, R>(
  fn: (event: E, context?: Context) => Promise<R>,
): (event: E, context?: Context) => Promise<R> {
  const observed = middy<E, R, Error, Context>(fn, { timeoutEarlyInMillis: 0 }).use(observability());
  return (event, context) => (context ? observed(event, context) : fn(event));
}
