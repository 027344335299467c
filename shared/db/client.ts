import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ENV, optionalEnv, requireEnv } from '../config/env.js';

/**
 * The DynamoDB document client, created once per process (module scope). `DYNAMODB_ENDPOINT`
 * points at DynamoDB Local. Up to 4 attempts for throttling, 5xx and dropped connections (the
 * SDK's standard retry).
 */
const endpoint = optionalEnv(ENV.dynamodbEndpoint);

export const doc = DynamoDBDocumentClient.from(
  new DynamoDBClient({ ...(endpoint ? { endpoint } : {}), maxAttempts: 4 }),
  {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
    unmarshallOptions: { wrapNumbers: false },
  },
);

export const tableName = requireEnv(ENV.tableName);

const observers = new Set<(operation: string) => void>();

// Counts commands, not attempts: the initialize step runs once per `send`, before the retries.
doc.middlewareStack.add(
  (next, context) => async (args) => {
    if (observers.size) {
      const operation = String(context.commandName ?? '').replace(/Command$/, '');
      for (const observer of observers) observer(operation);
    }
    return next(args);
  },
  { step: 'initialize', name: 'observeRequests', override: true },
);

/**
 * Calls `listener` with the operation (`GetItem`, `Query`, …) of every command the document client
 * sends (benchmarks and the request-budget tests count requests); returns the unsubscribe.
 */
export function observeRequests(listener: (operation: string) => void): () => void {
  observers.add(listener);
  return () => observers.delete(listener);
}
