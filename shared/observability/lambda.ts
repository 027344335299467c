import middy, { type MiddlewareObj } from '@middy/core';
import type { Context } from 'aws-lambda';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { logger } from './logger.js';
import { metrics } from './metrics.js';

/**
 * The Powertools middlewares of every function, first in its Middy stack: the Lambda context
 * (request id, cold start, function name) on every line, appended keys cleared at the end of the
 * invocation, the event never logged (it carries the caller's API key), and the metrics flushed
 * once per invocation, after the function's own `after` steps.
 */
type AnyMiddleware = MiddlewareObj<any, any, Error, Context, any>;

export function observability(): AnyMiddleware[] {
  return [injectLambdaContext(logger, { resetKeys: true, logEvent: false }), logMetrics(metrics)] as AnyMiddleware[];
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
