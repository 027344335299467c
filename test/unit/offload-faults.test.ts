import { afterEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { DynamoDBDocumentClient, GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { DeleteObjectsCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { handler as createInferenceResult } from '../../functions/inference-results/create.js';
import { offloadItem } from '../../shared/db/offload.js';
import { keys } from '../../shared/db/keys.js';
import { context, proxyEvent } from '../support/events.js';

// Faults the real emulators cannot be made to produce on demand: S3 refusing a write, a
// transaction cancelled after the objects were written.
const ddb = mockClient(DynamoDBDocumentClient);
const s3 = mockClient(S3Client);
afterEach(() => {
  ddb.reset();
  s3.reset();
});

const session = {
  ...keys.session('sess_1'),
  id: 'sess_1',
  organizationId: 'org_test',
  productId: 'prd_1',
  versionId: 'ver_1',
  status: 'PENDING',
  isProduction: true,
  turnCount: 0,
  createdAt: '2026-01-01T00:00:00.000Z',
};
const bigTurn = () =>
  proxyEvent({ httpMethod: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sessionId: 'sess_1', input: '雨'.repeat(250_000), output: '😀'.repeat(250_000) }) });

describe('large values: fault paths', () => {
  it('an S3 write that fails leaves no item and answers 500 without internals', async () => {
    ddb.on(GetCommand).resolves({ Item: session });
    ddb.on(QueryCommand).resolves({ Items: [] });
    s3.on(PutObjectCommand).rejects(Object.assign(new Error('Access Denied to secret-bucket'), { name: 'AccessDenied' }));
    const res = await createInferenceResult(bigTurn(), context());
    expect(res.statusCode).toBe(500);
    expect(JSON.parse(res.body)).toEqual({ error: 'Internal Server Error', message: expect.any(String) });
    expect(res.body).not.toMatch(/secret-bucket|Access Denied|S3/);
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });

  it('one of two objects written, the other refused: the written one is removed', async () => {
    s3.on(PutObjectCommand, { Key: 'orgs/org_1/inferenceResults/inf_1/output.json' }).rejects(new Error('SlowDown'));
    s3.on(PutObjectCommand, { Key: 'orgs/org_1/inferenceResults/inf_1/input.json' }).resolves({});
    s3.on(DeleteObjectsCommand).resolves({});
    const item = { id: 'inf_1', input: '雨'.repeat(250_000), output: '😀'.repeat(250_000) };
    await expect(offloadItem(item, { orgId: 'org_1', kind: 'inferenceResults', id: 'inf_1', fields: ['input', 'output'] })).rejects.toThrow('SlowDown');
    const deleted = s3.commandCalls(DeleteObjectsCommand).flatMap((c) => c.args[0].input.Delete?.Objects?.map((o) => o.Key) ?? []);
    expect(deleted).toEqual(['orgs/org_1/inferenceResults/inf_1/input.json']);
  });

  it('a transaction cancelled after the objects were written removes them', async () => {
    ddb.on(GetCommand, { Key: keys.session('sess_1') }).resolves({ Item: session });
    ddb.on(GetCommand, { Key: keys.turn('sess_1', 1) }).resolves({});
    ddb.on(QueryCommand).resolves({ Items: [] });
    ddb.on(TransactWriteCommand).rejects(
      Object.assign(new Error('Transaction cancelled'), { name: 'TransactionCanceledException', CancellationReasons: [{ Code: 'ValidationError' }] }),
    );
    s3.on(PutObjectCommand).resolves({});
    s3.on(DeleteObjectsCommand).resolves({});
    const res = await createInferenceResult(bigTurn(), context());
    expect(res.statusCode).toBe(500);
    const written = s3.commandCalls(PutObjectCommand).map((c) => c.args[0].input.Key);
    expect(written).toHaveLength(2);
    // the item the transaction would have written pointed at exactly these objects
    const put = ddb.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems![0]!.Put!.Item!;
    expect(Object.values(put._offloaded as Record<string, string>).sort()).toEqual([...written].sort());
    expect(put.input).toBeNull();
    const deleted = s3.commandCalls(DeleteObjectsCommand).flatMap((c) => c.args[0].input.Delete?.Objects?.map((o) => o.Key) ?? []);
    expect(deleted.sort()).toEqual([...written].sort());
  });
});
