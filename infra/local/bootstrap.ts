import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import { tableName } from '../../shared/db/client.js';
import { ENV, optionalEnv } from '../../shared/config/env.js';
import { createTableInput, TABLE } from '../../shared/db/table.js';
import { createOrganizationWithKey } from '../../shared/domain/accounts/api-keys.js';
import { findKeyByHash, getOrganization, insertApiKey } from '../../shared/db/organizations.js';
import { keyFromString, generateApiKey, type GeneratedKey } from '../../shared/auth/api-key.js';
import { newId, nowIso } from '../../shared/domain/common/ids.js';

/** Creates the table from the same definition CDK uses, when it is missing. */
export async function ensureTable(): Promise<void> {
  // The SDK's control-plane client: local tooling only, never bundled into a function.
  const endpoint = optionalEnv(ENV.dynamodbEndpoint);
  const dynamo = new DynamoDBClient(endpoint ? { endpoint } : {});
  try {
    await dynamo.send(new DescribeTableCommand({ TableName: tableName }));
    return;
  } catch (error) {
    if ((error as { name?: string }).name !== 'ResourceNotFoundException') throw error;
  }
  try {
    await dynamo.send(new CreateTableCommand(createTableInput(tableName)));
  } catch (error) {
    if ((error as { name?: string }).name !== 'ResourceInUseException') throw error;
  }
  await waitUntilTableExists({ client: dynamo, maxWaitTime: 60, minDelay: 1 }, { TableName: tableName });
  await dynamo
    .send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: TABLE.timeToLiveAttribute, Enabled: true },
      }),
    )
    .catch(() => undefined);
}

export const DEMO_ORG_ID = 'org_demo';

/**
 * Makes sure the demo organization (ENTERPRISE, 1,000 monthly credits) exists and that `key`
 * (or a new key, or the one remembered from a previous start) opens it. Returns the key.
 */
export async function seedDemoOrganization(options: { demoKey?: string; rememberedKey?: string }): Promise<string> {
  const wanted = options.demoKey ?? options.rememberedKey;
  const generated: GeneratedKey = wanted ? keyFromString(wanted) : generateApiKey();
  const existingKey = await findKeyByHash(generated.hash);
  if (existingKey && !existingKey.revokedAt && existingKey.organizationId === DEMO_ORG_ID) return generated.key;
  if (existingKey) {
    // A remembered key that no longer opens the demo organization: make a new one.
    if (!options.demoKey) return seedDemoOrganization({});
    throw new Error('DEMO_API_KEY is already used by another organization or was revoked');
  }
  const org = await getOrganization(DEMO_ORG_ID);
  if (!org) {
    const { apiKey } = await createOrganizationWithKey({
      organizationId: DEMO_ORG_ID,
      name: 'Demo organization',
      plan: 'ENTERPRISE',
      admin: false,
      monthlyCredits: 1000,
      key: generated,
    });
    return apiKey.key;
  }
  await insertApiKey(
    {
      id: newId('apiKey'),
      organizationId: DEMO_ORG_ID,
      userId: 'usr_demo',
      role: 'MEMBER',
      name: 'demo key',
      last4: generated.last4,
      createdAt: nowIso(),
    },
    generated,
  );
  return generated.key;
}
