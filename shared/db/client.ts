import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ENV, optionalEnv, requireEnv } from '../config/env.js';

export const tableName = requireEnv(ENV.tableName);

const observers = new Set<(operation: string) => void>();
let client: DynamoDBDocumentClient | undefined;

/**
 * The DynamoDB document client of the process, created on its first command: a function pays for
 * the SDK's configuration only when it talks to the table, and `DYNAMODB_ENDPOINT` (DynamoDB
 * Local) is read then, so a script that sets it after importing the repositories still reaches it.
 * Up to 4 attempts for throttling, 5xx and dropped connections (the SDK's standard retry).
 */
function documentClient(): DynamoDBDocumentClient {
  if (client) return client;
  const endpoint = optionalEnv(ENV.dynamodbEndpoint);
  client = DynamoDBDocumentClient.from(new DynamoDBClient({ ...(endpoint ? { endpoint } : {}), maxAttempts: 4 }), {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
    unmarshallOptions: { wrapNumbers: false },
  });
  // Counts commands, not attempts: the initialize step runs once per `send`, before the retries.
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (observers.size) {
        const operation = String(context.commandName ?? '').replace(/Command$/, '');
        for (const observer of observers) observer(operation);
      }
      return next(args);
    },
    { step: 'initialize', name: 'observeRequests', override: true },
  );
  return client;
}

type Send = DynamoDBDocumentClient['send'];

/** What the repositories call: the document client's `send`, on the client made on first use. */
export const doc: { send: Send } = {
  send: ((...args: Parameters<Send>) =>
    (documentClient().send as (...a: Parameters<Send>) => unknown)(...args)) as Send,
};

/**
 * Calls `listener` with the operation (`GetItem`, `Query`, …) of every command the document client
 * sends (benchmarks and the request-budget tests count requests); returns the unsubscribe.
 */
export function observeRequests(listener: (operation: string) => void): () => void {
  observers.add(listener);
  return () => observers.delete(listener);
}
