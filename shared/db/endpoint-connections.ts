import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { doc, tableName } from './client.js';
import { keys } from './keys.js';
import type { EndpointSecrets } from '../schemas/endpoint-connections.js';

/** Loads a connection's stored secrets (empty when none are stored). Only the write path calls this. */
export async function getEndpointSecrets(orgId: string, id: string): Promise<EndpointSecrets> {
  const out = await doc.send(new GetCommand({ TableName: tableName, Key: keys.endpointSecrets(orgId, id), ConsistentRead: true }));
  return { authToken: out.Item?.authToken as string | undefined, password: out.Item?.password as string | undefined };
}
