import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { handler as createInferenceResult } from '../../functions/inference-results/create.js';
import { offloadItem } from '../../shared/db/offload.js';
import { keys } from '../../shared/db/keys.js';
import { context, proxyEvent } from '../support/events.js';
import { s3ErrorXml, type FakeRequest } from '../support/fake-aws.js';

// Faults the real emulators cannot be made to produce on demand: S3 refusing a write, a
// transaction cancelled after the objects were written. S3 is a local HTTP server playing it
// (the storage module reads S3_ENDPOINT at load, so it starts before the imports).
const s3 = await vi.hoisted(async () => {
  const { startFakeAws: start } = await import('../support/fake-aws.js');
  const fake = await start();
  Object.assign(process.env, {
    S3_ENDPOINT: fake.endpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'AKIDTEST',
    AWS_SECRET_ACCESS_KEY: 'secret',
  });
  return fake;
});
const ddb = mockClient(DynamoDBDocumentClient);
afterEach(() => {
  ddb.reset();
  s3.reset();
});
afterAll(() => s3.close());

const BUCKET = process.env.BUCKET_NAME!;
/** The key of a PUT of an object, undefined for other requests. */
const putKey = (r: FakeRequest) =>
  r.method === 'PUT' ? decodeURIComponent(new URL(r.url, 'http://x').pathname.slice(`/${BUCKET}/`.length)) : undefined;
/** The keys of the DeleteObjects requests. */
const deletedKeys = () =>
  s3.requests
    .filter((r) => r.method === 'POST' && r.url.includes('?delete'))
    .flatMap((r) => [...r.body.matchAll(/<Key>([^<]*)<\/Key>/g)].map((m) => m[1]!));

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
  proxyEvent({
    httpMethod: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ sessionId: 'sess_1', input: '雨'.repeat(250_000), output: '😀'.repeat(250_000) }),
  });

describe('large values: fault paths', () => {
  it('an S3 write that fails leaves no item and answers 500 without internals', async () => {
    ddb.on(GetCommand).resolves({ Item: session });
    ddb.on(QueryCommand).resolves({ Items: [] });
    s3.reset((r) =>
      r.method === 'PUT'
        ? { status: 403, body: s3ErrorXml('AccessDenied', 'Access Denied to secret-bucket') }
        : undefined,
    );
    const res = await createInferenceResult(bigTurn(), context());
    expect(res.statusCode).toBe(500);
    expect(JSON.parse(res.body)).toEqual({ error: 'Internal Server Error', message: expect.any(String) });
    expect(res.body).not.toMatch(/secret-bucket|Access Denied|S3/);
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(0);
    expect(s3.requests.filter((r) => r.method === 'PUT').length).toBeGreaterThan(0);
  });

  it('one of two objects written, the other refused: the written one is removed', async () => {
    // SlowDown is retried (3 attempts, as the SDK did), then surfaces with its code and status
    s3.reset((r) =>
      putKey(r) === 'orgs/org_1/inferenceResults/inf_1/output.json'
        ? { status: 503, body: s3ErrorXml('SlowDown', 'Please reduce your request rate.') }
        : undefined,
    );
    const item = { id: 'inf_1', input: '雨'.repeat(250_000), output: '😀'.repeat(250_000) };
    const error = await offloadItem(item, {
      orgId: 'org_1',
      kind: 'inferenceResults',
      id: 'inf_1',
      fields: ['input', 'output'],
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      name: 'SlowDown',
      message: 'Please reduce your request rate.',
      $metadata: { httpStatusCode: 503, attempts: 3 },
    });
    expect(s3.requests.filter((r) => putKey(r) === 'orgs/org_1/inferenceResults/inf_1/output.json')).toHaveLength(3);
    expect(deletedKeys()).toEqual(['orgs/org_1/inferenceResults/inf_1/input.json']);
  });

  it('a transaction cancelled after the objects were written removes them', async () => {
    ddb.on(GetCommand, { Key: keys.session('sess_1') }).resolves({ Item: session });
    ddb.on(GetCommand, { Key: keys.turn('sess_1', 1) }).resolves({});
    ddb.on(QueryCommand).resolves({ Items: [] });
    ddb.on(TransactWriteCommand).rejects(
      Object.assign(new Error('Transaction cancelled'), {
        name: 'TransactionCanceledException',
        CancellationReasons: [{ Code: 'ValidationError' }],
      }),
    );
    const res = await createInferenceResult(bigTurn(), context());
    expect(res.statusCode).toBe(500);
    const written = s3.requests.map(putKey).filter((k) => k !== undefined);
    expect(written).toHaveLength(2);
    // the item the transaction would have written pointed at exactly these objects
    const put = ddb.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems![0]!.Put!.Item!;
    expect(Object.values(put._offloaded as Record<string, string>).sort()).toEqual([...written].sort());
    expect(put.input).toBeNull();
    expect(deletedKeys().sort()).toEqual([...written].sort());
  });
});
