import { ENV, optionalEnv, requireEnv } from '../config/env.js';
import { DocumentClient } from './dynamodb.js';

/**
 * The document client, created once per process (module scope). `DYNAMODB_ENDPOINT` points at
 * DynamoDB Local. Up to 4 attempts for throttling, 5xx and dropped connections.
 */
export const doc = new DocumentClient({ endpoint: optionalEnv(ENV.dynamodbEndpoint), maxAttempts: 4 });

export const tableName = requireEnv(ENV.tableName);
