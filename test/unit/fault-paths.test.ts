import { afterEach, describe, expect, it } from 'vitest';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { BatchGetCommand, GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { deletePhoneConnections } from '../../shared/domain/catalog/phone-connections.js';
import { handler as getPhoneConnection } from '../../functions/phone-connections/get.js';
import { handler as authorizer } from '../../functions/authorizer.js';
import { generateApiKey } from '../../shared/auth/api-key.js';
import { NotFoundError } from '../../shared/errors.js';
import { context, proxyEvent } from '../support/events.js';

// Faults the real engine cannot be made to produce on demand (races, throttling, outages).
const ddb = mockClient(DynamoDBDocumentClient);
afterEach(() => ddb.reset());

const auth = {
  organizationId: 'org_1',
  userId: 'usr_1',
  role: 'MEMBER' as const,
  plan: 'PRO' as const,
  keyId: 'key_1',
};
const live = (id: string) => ({
  pk: 'ORG#org_1',
  sk: `PHONE#${id}`,
  id,
  organizationId: 'org_1',
  productId: 'p',
  name: id,
  phoneNumber: '+14155550123',
  agentSpeaksFirst: false,
  createdAt: '2026-01-01T00:00:00.000Z',
});

describe('fault paths', () => {
  it('batch delete: a record deleted between the read and the transaction is a 404 naming it, and nothing is half-written', async () => {
    ddb.on(BatchGetCommand).resolves({ Responses: { 'unit-tests-have-no-table': [live('phc_a'), live('phc_b')] } });
    const cancelled = Object.assign(new Error('Transaction cancelled'), {
      name: 'TransactionCanceledException',
      CancellationReasons: [{ Code: 'None' }, { Code: 'ConditionalCheckFailed' }],
    });
    ddb.on(TransactWriteCommand).rejects(cancelled);
    await expect(deletePhoneConnections(auth, { ids: ['phc_a', 'phc_b'] })).rejects.toThrow(
      new NotFoundError('phone connection phc_b not found'),
    );
    // one transaction: either every record changes or none does
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(1);
    expect(ddb.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems).toHaveLength(2);
  });

  it('a throttled table gives a 500 without internals', async () => {
    ddb.on(GetCommand).rejects(
      Object.assign(new Error('Rate of requests exceeds the allowed throughput for table secret-table'), {
        name: 'ProvisionedThroughputExceededException',
      }),
    );
    const res = await getPhoneConnection(proxyEvent({ pathParameters: { id: 'phc_a' } }), context());
    expect(res.statusCode).toBe(500);
    expect(JSON.parse(res.body)).toEqual({ error: 'Internal Server Error', message: expect.any(String) });
    expect(res.body).not.toMatch(/secret-table|Throughput/);
  });

  it('the authorizer never answers 401 for a storage outage (the gateway gives 500)', async () => {
    ddb.on(GetCommand).rejects(Object.assign(new Error('connect ECONNREFUSED'), { name: 'NetworkingError' }));
    const key = generateApiKey().key;
    await expect(
      authorizer({
        type: 'TOKEN',
        authorizationToken: `Bearer ${key}`,
        methodArn: 'arn:aws:execute-api:r:1:a/v1/GET/x',
      }),
    ).rejects.toThrow('ECONNREFUSED');
  });
});
