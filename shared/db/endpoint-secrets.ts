import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { TransactItem } from './catalog.js';
import type { EndpointSecrets } from '../schemas/endpoint-connections.js';
import { doc, tableName } from './client.js';
import { keys } from './keys.js';

/**
 * The write-only secrets of an endpoint connection (authToken, password). Read only by the write
 * path (to re-check the auth rules) and by the agent caller; never by a read route.
 */
export async function getEndpointSecrets(orgId: string, connectionId: string): Promise<EndpointSecrets> {
  const out = await doc.send(
    new GetCommand({ TableName: tableName, Key: keys.endpointSecrets(orgId, connectionId), ConsistentRead: true }),
  );
  const item = out.Item ?? {};
  return {
    ...(typeof item.authToken === 'string' ? { authToken: item.authToken } : {}),
    ...(typeof item.password === 'string' ? { password: item.password } : {}),
  };
}

/** The write that stores a connection's secrets, or removes them when it has none left. */
export function endpointSecretsWrite(orgId: string, connectionId: string, secrets: EndpointSecrets): TransactItem {
  if (!secrets.authToken && !secrets.password) return endpointSecretsDelete(orgId, connectionId);
  return {
    Put: {
      TableName: tableName,
      Item: { ...keys.endpointSecrets(orgId, connectionId), entity: 'ECONSECRET', ...secrets },
    },
  };
}

/** The delete of a connection's secrets (a deleted connection never needs them again). */
export function endpointSecretsDelete(orgId: string, connectionId: string): TransactItem {
  return { Delete: { TableName: tableName, Key: keys.endpointSecrets(orgId, connectionId) } };
}
