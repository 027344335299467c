import type { MiddlewareObj } from '@middy/core';
import type { Context } from 'aws-lambda';

/**
 * Middlewares that the modules a function reaches add to every invocation of it. The metrics flush
 * is one (./metrics.ts): it is added by the module that counts metrics, so a function whose code
 * counts none carries no metrics code at all, and one that does flushes once per invocation.
 */
// biome-ignore lint/suspicious/noExplicitAny: Middy's event and result types differ per function.
export type AnyMiddleware = MiddlewareObj<any, any, Error, Context, any>;

const added: AnyMiddleware[] = [];

/**
 * Adds a middleware to every invocation of every observed handler (shared/observability/lambda.ts);
 * returns what takes it away again.
 */
export function onEveryInvocation(middleware: AnyMiddleware): () => void {
  added.push(middleware);
  return () => {
    const i = added.indexOf(middleware);
    if (i >= 0) added.splice(i, 1);
  };
}

/**
 * The added middlewares as one, in Middy's order: `before` steps in the order they were added
 * (the first that answers ends the request early, as in Middy), `after` and `onError` steps in
 * the reverse order. Read at each invocation, so a middleware added after a handler was wrapped
 * still runs.
 */
export const addedMiddlewares: AnyMiddleware = {
  before: async (request) => {
    for (const m of added) {
      const early = await m.before?.(request);
      if (early !== undefined) return early;
    }
  },
  after: async (request) => {
    for (const m of [...added].reverse()) await m.after?.(request);
  },
  onError: async (request) => {
    for (const m of [...added].reverse()) await m.onError?.(request);
  },
};
