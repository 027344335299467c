import type { AuthContext } from '../../auth/context.js';
import { createRecord, getRecord, transact, updateWrite, type TransactItem } from '../../db/catalog.js';
import { endpointSecretsWrite, getEndpointSecrets } from '../../db/endpoint-secrets.js';
import type {
  EndpointConnectionCreate,
  EndpointConnectionUpdate,
  EndpointSecrets,
} from '../../schemas/endpoint-connections.js';
import {
  capRetryMaxDelay,
  capTimeout,
  checkAuth,
  checkHeaders,
  checkInputSchema,
  checkInputTemplate,
  checkOutputMapping,
  checkRetry,
  checkUrl,
  RETRY_DEFAULTS,
} from './endpoint-connection-rules.js';
import { loadUserSchemaCompiler } from '../../schemas/user-schemas.js';
import { endpointConnectionEntity } from '../common/entities.js';
import { newId, nowIso } from '../common/ids.js';
import { rejectImmutable } from '../common/immutable.js';
import { assertNotReferenced } from './endpoint-connection-reads.js';
import { requireLiveProduct } from './product-refs.js';
import { productLiveCheck } from './products.js';
import type { EndpointConnection } from '../../schemas/endpoint-connections.js';

/**
 * Every rule of the contract on a whole (merged) connection and its secrets. The JSON Schema
 * compiler is loaded only for a connection that has an `inputSchema` (the field is optional).
 */
async function checkConnection(c: EndpointConnection, secrets: EndpointSecrets): Promise<void> {
  if (c.inputSchema) await loadUserSchemaCompiler();
  checkUrl(c.url);
  checkHeaders(c.headers);
  checkInputTemplate(c.inputTemplate);
  checkOutputMapping(c.outputMapping);
  checkInputSchema(c.inputSchema);
  checkRetry(c);
  checkAuth(c.authType, c.username, secrets);
}

export async function createEndpointConnection(
  auth: AuthContext,
  input: EndpointConnectionCreate,
): Promise<EndpointConnection> {
  await requireLiveProduct(auth, input.productId);
  const retryEnabled = input.retryEnabled ?? false;
  const secrets: EndpointSecrets = { authToken: input.authToken ?? undefined, password: input.password ?? undefined };
  const record: EndpointConnection = {
    id: newId('endpointConnection'),
    organizationId: auth.organizationId,
    productId: input.productId,
    userId: auth.userId,
    name: input.name,
    url: input.url,
    httpMethod: input.httpMethod ?? 'POST',
    authType: input.authType ?? 'NONE',
    hasAuthToken: Boolean(secrets.authToken),
    username: input.username ?? null,
    hasPassword: Boolean(secrets.password),
    headers: input.headers ?? {},
    inputTemplate: input.inputTemplate,
    outputMapping: input.outputMapping,
    inputSchema: input.inputSchema ?? null,
    type: input.type,
    timeout: capTimeout(input.timeout),
    rateLimit: input.rateLimit ?? null,
    retryEnabled,
    retryMaxAttempts: input.retryMaxAttempts ?? (retryEnabled ? RETRY_DEFAULTS.enabledAttempts : 0),
    retryInitialDelayMs: input.retryInitialDelayMs ?? RETRY_DEFAULTS.initialDelayMs,
    retryBackoffStrategy: input.retryBackoffStrategy ?? RETRY_DEFAULTS.backoff,
    retryMaxDelayMs: capRetryMaxDelay(input.retryMaxDelayMs ?? RETRY_DEFAULTS.maxDelayMs),
    retryableStatusCodes: input.retryableStatusCodes ?? RETRY_DEFAULTS.statusCodes,
    createdAt: nowIso(),
  };
  await checkConnection(record, secrets);
  const extra: TransactItem[] = [productLiveCheck(auth.organizationId, record.productId)];
  if (record.hasAuthToken || record.hasPassword)
    extra.push(endpointSecretsWrite(auth.organizationId, record.id, secrets));
  return createRecord(endpointConnectionEntity, record, extra);
}

/** Loads the stored secrets: the write path does this to re-check the auth rules. */
function loadSecrets(orgId: string, id: string): Promise<EndpointSecrets> {
  return getEndpointSecrets(orgId, id);
}

const PLAIN_FIELDS = [
  'name',
  'url',
  'httpMethod',
  'authType',
  'headers',
  'inputTemplate',
  'outputMapping',
  'inputSchema',
  'type',
  'rateLimit',
  'retryEnabled',
  'retryMaxAttempts',
  'retryInitialDelayMs',
  'retryBackoffStrategy',
  'retryableStatusCodes',
  'username',
] as const;

/**
 * PATCH: omitted = unchanged, null = cleared (nullable fields), productId immutable. Secrets:
 * a value replaces, null clears, omitted keeps; a secret the new authType does not use is dropped.
 * The merged connection must satisfy every rule.
 */
export async function updateEndpointConnection(
  auth: AuthContext,
  id: string,
  body: EndpointConnectionUpdate,
): Promise<EndpointConnection> {
  rejectImmutable(body, ['productId']);
  const current = await getRecord<EndpointConnection>(endpointConnectionEntity, auth.organizationId, id);
  const stored = await loadSecrets(auth.organizationId, id);
  const next: EndpointConnection = { ...current };
  const assign = next as unknown as Record<string, unknown>;
  for (const field of PLAIN_FIELDS) if (body[field] !== undefined) assign[field] = body[field];
  if (body.timeout !== undefined) next.timeout = capTimeout(body.timeout);
  if (body.retryMaxDelayMs !== undefined) next.retryMaxDelayMs = capRetryMaxDelay(body.retryMaxDelayMs);
  if (body.retryEnabled === true && body.retryMaxAttempts === undefined && next.retryMaxAttempts < 1)
    next.retryMaxAttempts = RETRY_DEFAULTS.enabledAttempts;

  const secrets: EndpointSecrets = {
    authToken: body.authToken === undefined ? stored.authToken : (body.authToken ?? undefined),
    password: body.password === undefined ? stored.password : (body.password ?? undefined),
  };
  if (body.authType !== undefined && body.authType !== current.authType) {
    // Credentials the new authType does not take, and that the body did not send, are dropped.
    const usesToken = next.authType === 'BEARER' || next.authType === 'API_KEY';
    if (!usesToken && body.authToken === undefined) secrets.authToken = undefined;
    if (next.authType !== 'BASIC' && body.password === undefined) secrets.password = undefined;
    if (next.authType !== 'BASIC' && body.username === undefined) next.username = null;
  }
  next.hasAuthToken = Boolean(secrets.authToken);
  next.hasPassword = Boolean(secrets.password);
  await checkConnection(next, secrets);
  if (next.type !== current.type) await assertNotReferenced(auth, current, 'change the type of');

  const set: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(next)) {
    if (k === 'id' || k === 'organizationId' || k === 'createdAt') continue;
    if (JSON.stringify(v) !== JSON.stringify((current as unknown as Record<string, unknown>)[k])) set[k] = v;
  }
  const secretsChanged = secrets.authToken !== stored.authToken || secrets.password !== stored.password;
  if (Object.keys(set).length === 0 && !secretsChanged) return current;
  const items: TransactItem[] = [
    updateWrite(endpointConnectionEntity, auth.organizationId, id, {
      ...set,
      hasAuthToken: next.hasAuthToken,
      hasPassword: next.hasPassword,
    }),
  ];
  if (secretsChanged) items.push(endpointSecretsWrite(auth.organizationId, id, secrets));
  await transact(items);
  return next;
}

export {
  deleteEndpointConnection,
  getEndpointConnection,
  listEndpointConnections,
} from './endpoint-connection-reads.js';
