import { type ConsumedCapacity, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ENV, optionalEnv, requireEnv } from '../config/env.js';

export const tableName = requireEnv(ENV.tableName);

const observers = new Set<(operation: string) => void>();
const capacityObservers = new Set<(request: RequestCapacity) => void>();
/** The operations that report the capacity they consumed (`ReturnConsumedCapacity`). */
const CAPACITY_OPERATIONS = new Set([
  'GetItem',
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'Query',
  'Scan',
  'BatchGetItem',
  'BatchWriteItem',
  'TransactGetItems',
  'TransactWriteItems',
  'ExecuteStatement',
  'BatchExecuteStatement',
  'ExecuteTransaction',
]);
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
      if (!observers.size && !capacityObservers.size) return next(args);
      const operation = String(context.commandName ?? '').replace(/Command$/, '');
      for (const observer of observers) observer(operation);
      if (!capacityObservers.size || !CAPACITY_OPERATIONS.has(operation)) return next(args);
      const input = args.input as Record<string, unknown>;
      try {
        const out = await next({ ...args, input: { ...input, ReturnConsumedCapacity: 'INDEXES' } });
        const consumed = (out.output as { ConsumedCapacity?: ConsumedCapacity | ConsumedCapacity[] }).ConsumedCapacity;
        const request = { operation, input, consumed: consumed === undefined ? [] : [consumed].flat() };
        for (const observer of capacityObservers) observer(request);
        return out;
      } catch (error) {
        const request = { operation, input, error: (error as Error).name };
        for (const observer of capacityObservers) observer(request);
        throw error;
      }
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

/** One request as `observeCapacity` reports it. */
export interface RequestCapacity {
  /** `GetItem`, `TransactWriteItems`, … */
  operation: string;
  /** The command's input as the repository gave it (before marshalling). */
  input: Record<string, unknown>;
  /** What DynamoDB reports the request consumed, for the table and each index it touched. */
  consumed?: readonly ConsumedCapacity[];
  /** The error's name when the request failed (a condition not met, a cancelled transaction): DynamoDB reports no capacity then. */
  error?: string;
}

/**
 * Calls `listener` with the capacity each data request consumed (read and write request units, for
 * the table and each index), which DynamoDB reports because, while a listener is subscribed, every
 * data request asks for it (`ReturnConsumedCapacity: INDEXES`): `npm run bench:runs` prices a run
 * with it. Returns the unsubscribe.
 */
export function observeCapacity(listener: (request: RequestCapacity) => void): () => void {
  capacityObservers.add(listener);
  return () => capacityObservers.delete(listener);
}
