import { getRecord } from '../../../db/catalog.js';
import { getEndpointSecrets } from '../../../db/endpoint-secrets.js';
import type { EndpointSecrets } from '../../../schemas/endpoint-connections.js';
import { endpointConnectionEntity } from '../../common/entities.js';
import type { AgentConnection } from './types.js';
import type { EndpointConnection } from '../../../schemas/endpoint-connections.js';

/** Stored endpoint connections as the caller needs them (kept out of index.ts: this reads the table). */

/** The caller's view of a stored endpoint connection, with its secrets. */
export function toAgentConnection(record: EndpointConnection, secrets: EndpointSecrets): AgentConnection {
  return {
    id: record.id,
    url: record.url,
    httpMethod: record.httpMethod,
    authType: record.authType,
    ...(secrets.authToken ? { authToken: secrets.authToken } : {}),
    ...(record.username ? { username: record.username } : {}),
    ...(secrets.password ? { password: secrets.password } : {}),
    headers: record.headers ?? {},
    inputTemplate: record.inputTemplate,
    outputMapping: record.outputMapping,
    timeout: record.timeout,
    rateLimit: record.rateLimit,
    retryEnabled: record.retryEnabled,
    retryMaxAttempts: record.retryMaxAttempts,
    retryInitialDelayMs: record.retryInitialDelayMs,
    retryBackoffStrategy: record.retryBackoffStrategy,
    retryMaxDelayMs: record.retryMaxDelayMs,
    retryableStatusCodes: record.retryableStatusCodes,
  };
}

/**
 * Loads a live endpoint connection of the organization with its secrets, ready to call
 * (403 another organization's, 404 unknown or deleted). Only the caller's users need this.
 */
export async function loadAgentConnection(
  orgId: string,
  connectionId: string,
): Promise<{ record: EndpointConnection; connection: AgentConnection }> {
  const record = await getRecord<EndpointConnection>(endpointConnectionEntity, orgId, connectionId);
  const secrets = record.hasAuthToken || record.hasPassword ? await getEndpointSecrets(orgId, connectionId) : {};
  return { record, connection: toAgentConnection(record, secrets) };
}
