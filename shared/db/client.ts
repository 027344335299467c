import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ENV, optionalEnv, requireEnv } from '../config/env.js';

/** Created once per process (module scope). `DYNAMODB_ENDPOINT` points at DynamoDB Local. */
const endpoint = optionalEnv(ENV.dynamodbEndpoint);

export const dynamo = new DynamoDBClient({
  ...(endpoint ? { endpoint } : {}),
  maxAttempts: 4,
});

export const doc = DynamoDBDocumentClient.from(dynamo, {
  marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  unmarshallOptions: { wrapNumbers: false },
});

export const tableName = requireEnv(ENV.tableName);
