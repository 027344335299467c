import { AsyncLocalStorage } from 'node:async_hooks';
import { LogFormatter, LogItem, Logger } from '@aws-lambda-powertools/logger';
import type { LogAttributes, LogLevel, UnformattedAttributes } from '@aws-lambda-powertools/logger/types';
import { ENV, optionalEnv } from '../config/env.js';
import { SERVICE_NAME } from './metric-names.js';
import { mapStack } from './stack-map.js';

/**
 * The one logger of a function (Powertools for AWS Lambda): structured JSON lines with the Lambda
 * context once `injectLambdaContext` ran (shared/observability/lambda.ts), keys appended per
 * invocation, and keys scoped to a piece of work with `withLogKeys`.
 *
 * Never log a secret, an API key, a request or answer body, or headers: callers pass ids, counts,
 * statuses and error sentences that were redacted where they were made.
 */

// The service every function logs and counts under, unless POWERTOOLS_SERVICE_NAME names another.
export { SERVICE_NAME } from './metric-names.js';

export const serviceName = (): string => process.env.POWERTOOLS_SERVICE_NAME || SERVICE_NAME;

const scoped = new AsyncLocalStorage<LogAttributes>();

/**
 * Runs `fn` with `keys` on every line logged inside it, however deep. Records of one SQS batch run
 * in parallel within one invocation, where `appendKeys` (one set per invocation) would give a
 * record's lines the ids of another; nested calls add to the keys around them.
 */
export function withLogKeys<T>(keys: LogAttributes, fn: () => T): T {
  return scoped.run({ ...scoped.getStore(), ...keys }, fn);
}

/**
 * Powertools' standard keys (the same names as its default formatter, which the package does not
 * export), then the keys of the `withLogKeys` scope, then the appended keys and the line's own.
 */
class ScopedKeysFormatter extends LogFormatter {
  override formatAttributes(attributes: UnformattedAttributes, additional: LogAttributes): LogItem {
    const context = attributes.lambdaContext;
    const item = new LogItem({
      attributes: {
        level: attributes.logLevel,
        message: attributes.message,
        timestamp: this.formatTimestamp(attributes.timestamp),
        service: attributes.serviceName,
        cold_start: context?.coldStart,
        function_arn: context?.invokedFunctionArn,
        function_memory_size: context?.memoryLimitInMB,
        function_name: context?.functionName,
        function_request_id: context?.awsRequestId,
        sampling_rate: attributes.sampleRateValue,
        xray_trace_id: attributes.xRayTraceId,
      },
    });
    const keys = scoped.getStore();
    if (keys) item.addAttributes({ ...keys });
    return item.addAttributes(additional);
  }

  /** An error logged as such: its stack and location in the sources, not the bundle (./stack-map.ts). */
  override formatError(error: Error): LogAttributes {
    const formatted = super.formatError(error);
    const stack = mapStack(error.stack);
    if (stack === undefined || stack === error.stack) return formatted;
    // Powertools' dev mode (POWERTOOLS_DEV) prints the stack as a list of lines.
    const lines = Array.isArray(formatted.stack);
    return { ...formatted, location: this.getCodeLocation(stack), stack: lines ? stack.split('\n') : stack };
  }
}

/** POWERTOOLS_LOG_LEVEL, else LOG_LEVEL, in any case (Powertools reads the variables only in capitals). */
function configuredLevel(): LogLevel {
  return (process.env.POWERTOOLS_LOG_LEVEL || optionalEnv(ENV.logLevel) || 'INFO').toUpperCase() as LogLevel;
}

export const logger = new Logger({
  serviceName: serviceName(),
  logLevel: configuredLevel(),
  logFormatter: new ScopedKeysFormatter(),
});
