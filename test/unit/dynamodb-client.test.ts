import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import * as sdk from '@aws-sdk/lib-dynamodb';
import * as own from '../../shared/db/dynamodb.js';
import { startFakeAws, type FakeAnswer, type FakeRequest } from '../support/fake-aws.js';

// The service's document client (shared/db/dynamodb.ts) replaces @aws-sdk/lib-dynamodb in every
// function. Here both send the same commands to a local HTTP server playing DynamoDB: the request
// bodies must be the same JSON, the canned answers must come out as the same values, the errors
// with the same names and fields, and retries must follow the SDK's.
let fake: Awaited<ReturnType<typeof startFakeAws>>;
let theirs: sdk.DynamoDBDocumentClient;
let ours: own.DocumentClient;
beforeAll(async () => {
  fake = await startFakeAws();
  Object.assign(process.env, { AWS_REGION: 'eu-west-1', AWS_ACCESS_KEY_ID: 'AKIDTEST', AWS_SECRET_ACCESS_KEY: 'secret' });
  theirs = sdk.DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint: fake.endpoint, region: 'eu-west-1', credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'secret' }, maxAttempts: 4 }), {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
    unmarshallOptions: { wrapNumbers: false },
  });
  ours = new own.DocumentClient({ endpoint: fake.endpoint, maxAttempts: 4 });
});
afterAll(() => fake.close());

const json = (body: unknown, status = 200, headers: Record<string, string> = {}): FakeAnswer => ({ status, headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': 'REQ1', ...headers }, body: JSON.stringify(body) });
const ok = (answer: unknown) => () => json(answer);

/** Sends `[sdkCommand, ownCommand]` through both clients with `answer`; returns both requests and results. */
async function both(make: () => [object, object], answer: (r: FakeRequest) => FakeAnswer) {
  const [sdkCommand, ownCommand] = make();
  fake.reset(answer);
  const a = await theirs.send(sdkCommand as never).then((v) => ({ value: v }), (e: unknown) => ({ error: e }));
  const sdkRequests = [...fake.requests];
  fake.reset(answer);
  const b = await ours.send(ownCommand as never).then((v) => ({ value: v }), (e: unknown) => ({ error: e }));
  return { sdk: { result: a, requests: sdkRequests }, own: { result: b, requests: [...fake.requests] } };
}

const item = {
  pk: 'ORG#org_1',
  sk: 'PRODUCT#prd_1',
  name: 'Ünïcode 雨 🌧',
  count: 42,
  ratio: 0.125,
  negative: -7,
  flag: true,
  off: false,
  nothing: null,
  gone: undefined,
  tags: ['a', 1, { deep: [true, null, undefined] }],
  nested: { a: { b: { c: 'd' } }, empty: {}, list: [] },
  strings: new Set(['x', 'y']),
  numbers: new Set([1, 2.5]),
  bytes: new Uint8Array([0, 1, 2, 250]),
};
const key = { pk: 'ORG#org_1', sk: 'PRODUCT#prd_1' };
const rawItem = {
  pk: { S: 'ORG#org_1' },
  count: { N: '42' },
  big: { N: '123456789012345678901234567890' },
  float: { N: '-0.25' },
  exponent: { N: '1.5E3' },
  list: { L: [{ S: 'a' }, { N: '1' }, { NULL: true }, { BOOL: false }, { M: { x: { SS: ['p', 'q'] } } }] },
  bytes: { B: 'AAEC+g==' },
  bset: { BS: ['AAE=', 'Ag=='] },
  nset: { NS: ['1', '2.5'] },
};

const requests: [string, () => [object, object], unknown][] = [
  ['GetItem', () => [new sdk.GetCommand({ TableName: 't', Key: key, ConsistentRead: true }), new own.GetCommand({ TableName: 't', Key: key, ConsistentRead: true })], { Item: rawItem }],
  ['GetItem of a missing item', () => [new sdk.GetCommand({ TableName: 't', Key: key }), new own.GetCommand({ TableName: 't', Key: key })], {}],
  ['PutItem', () => [new sdk.PutCommand({ TableName: 't', Item: item, ConditionExpression: 'attribute_not_exists(pk) OR v < :v', ExpressionAttributeValues: { ':v': 3, ':u': undefined } }), new own.PutCommand({ TableName: 't', Item: item, ConditionExpression: 'attribute_not_exists(pk) OR v < :v', ExpressionAttributeValues: { ':v': 3, ':u': undefined } })], {}],
  [
    'UpdateItem returning the new item',
    () => {
      const input = { TableName: 't', Key: key, UpdateExpression: 'SET #n = :n, tags = list_append(tags, :t) REMOVE x', ExpressionAttributeNames: { '#n': 'name' }, ExpressionAttributeValues: { ':n': 'x', ':t': [{ a: 1 }] }, ReturnValues: 'ALL_NEW' as const };
      return [new sdk.UpdateCommand(input), new own.UpdateCommand(input)];
    },
    { Attributes: rawItem },
  ],
  ['DeleteItem', () => [new sdk.DeleteCommand({ TableName: 't', Key: key, ReturnValues: 'ALL_OLD' }), new own.DeleteCommand({ TableName: 't', Key: key, ReturnValues: 'ALL_OLD' })], { Attributes: { pk: { S: 'p' } } }],
  [
    'Query with a start key',
    () => {
      const input = { TableName: 't', IndexName: 'gsi1', KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)', ExpressionAttributeValues: { ':pk': 'ORG#1', ':p': 'RUN#' }, ExclusiveStartKey: key, Limit: 10, ScanIndexForward: false };
      return [new sdk.QueryCommand(input), new own.QueryCommand(input)];
    },
    { Items: [rawItem, { pk: { S: 'b' } }], Count: 2, ScannedCount: 2, LastEvaluatedKey: { pk: { S: 'b' }, sk: { S: 'c' } } },
  ],
  [
    'BatchGetItem with unprocessed keys',
    () => {
      const input = { RequestItems: { t: { Keys: [key, { pk: 'a', sk: 'b' }], ProjectionExpression: 'pk, #n', ExpressionAttributeNames: { '#n': 'name' } }, Key: { Keys: [key] } } };
      return [new sdk.BatchGetCommand(input), new own.BatchGetCommand(input)];
    },
    { Responses: { t: [rawItem], Key: [{ pk: { S: 'k' } }] }, UnprocessedKeys: { t: { Keys: [{ pk: { S: 'a' }, sk: { S: 'b' } }], ProjectionExpression: 'pk' } } },
  ],
  [
    'BatchWriteItem with unprocessed items',
    () => {
      const input = { RequestItems: { t: [{ PutRequest: { Item: item } }, { DeleteRequest: { Key: key } }] } };
      return [new sdk.BatchWriteCommand(input), new own.BatchWriteCommand(input)];
    },
    { UnprocessedItems: { t: [{ PutRequest: { Item: { pk: { S: 'x' }, n: { N: '1' } } } }, { DeleteRequest: { Key: { pk: { S: 'y' } } } }] } },
  ],
  [
    'TransactWriteItems',
    () => {
      const input = {
        TransactItems: [
          { Put: { TableName: 't', Item: item, ConditionExpression: 'attribute_not_exists(pk)' } },
          { Update: { TableName: 't', Key: key, UpdateExpression: 'SET n = n + :one', ExpressionAttributeValues: { ':one': 1 } } },
          { Delete: { TableName: 't', Key: key } },
          { ConditionCheck: { TableName: 't', Key: key, ConditionExpression: 'v = :v', ExpressionAttributeValues: { ':v': 'x' } } },
        ],
        ClientRequestToken: 'tok',
      };
      return [new sdk.TransactWriteCommand(input), new own.TransactWriteCommand(input)];
    },
    {},
  ],
  [
    'ExecuteStatement with parameters',
    () => {
      const input = { Statement: 'SELECT * FROM "t" WHERE pk = ? AND sk IN [?, ?]', Parameters: ['ORG#1', 'A', 3], ConsistentRead: true };
      return [new sdk.ExecuteStatementCommand(input), new own.ExecuteStatementCommand(input)];
    },
    { Items: [rawItem], NextToken: 'next' },
  ],
];

const strip = (v: unknown) => {
  const { $metadata: _m, ...rest } = v as Record<string, unknown>;
  return rest;
};

describe('the service DynamoDB client, side by side with @aws-sdk/lib-dynamodb', () => {
  it.each(requests)('%s: the same request body, target and values', async (_, make, answer) => {
    const r = await both(make, ok(answer));
    expect('value' in r.own.result, String((r.own.result as { error?: Error }).error)).toBe(true);
    const [a] = r.sdk.requests;
    const [b] = r.own.requests;
    expect(r.own.requests).toHaveLength(1);
    expect(JSON.parse(b!.body)).toEqual(JSON.parse(a!.body));
    expect(b!.headers['x-amz-target']).toBe(a!.headers['x-amz-target']);
    expect(b!.headers['content-type']).toBe(a!.headers['content-type']);
    expect([b!.method, b!.url]).toEqual([a!.method, a!.url]);
    expect(b!.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDTEST\/\d{8}\/eu-west-1\/dynamodb\/aws4_request, SignedHeaders=content-length;content-type;host;x-amz-date;x-amz-target, Signature=[0-9a-f]{64}$/);
    const sdkValue = (r.sdk.result as { value: object }).value;
    const ownValue = (r.own.result as { value: object }).value;
    expect(strip(ownValue)).toEqual(strip(sdkValue));
    expect((ownValue as { $metadata: object }).$metadata).toMatchObject({ httpStatusCode: 200, requestId: 'REQ1' });
  });

  it('refuses what the SDK refuses before sending (NaN, a class instance, an unsafe integer)', async () => {
    class Money {
      amount = 1;
    }
    for (const bad of [Number.NaN, new Money(), 2 ** 60]) {
      const r = await both(() => [new sdk.PutCommand({ TableName: 't', Item: { pk: 'x', bad } }), new own.PutCommand({ TableName: 't', Item: { pk: 'x', bad } })], ok({}));
      expect(r.sdk.requests).toHaveLength(0);
      expect(r.own.requests).toHaveLength(0);
      expect(String((r.own.result as { error: Error }).error)).toBe(String((r.sdk.result as { error: Error }).error));
    }
  });

  it.each([
    ['ConditionalCheckFailedException', { __type: 'com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException', message: 'The conditional request failed', Item: { tat: { N: '17' } } }],
    [
      'TransactionCanceledException',
      { __type: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException', Message: 'Transaction cancelled, please refer cancellation reasons for specific reasons [None, ConditionalCheckFailed]', CancellationReasons: [{ Code: 'None' }, { Code: 'ConditionalCheckFailed', Message: 'The conditional request failed', Item: { pk: { S: 'p' } } }] },
    ],
    ['ValidationException', { __type: 'com.amazon.coral.validate#ValidationException', message: 'One or more parameter values were invalid' }],
    ['ResourceNotFoundException', { __type: 'com.amazonaws.dynamodb.v20120810#ResourceNotFoundException', message: 'Requested resource not found' }],
  ])('%s: the same error name, message, fields and status, not retried', async (name, body) => {
    const r = await both(() => [new sdk.UpdateCommand({ TableName: 't', Key: key, UpdateExpression: 'SET a = :a', ExpressionAttributeValues: { ':a': 1 } }), new own.UpdateCommand({ TableName: 't', Key: key, UpdateExpression: 'SET a = :a', ExpressionAttributeValues: { ':a': 1 } })], () => json(body, 400));
    const a = (r.sdk.result as { error: Record<string, unknown> & Error }).error;
    const b = (r.own.result as { error: Record<string, unknown> & Error }).error;
    expect(b).toBeInstanceOf(Error);
    expect([b.name, b.message]).toEqual([name, a.message]);
    expect(b.CancellationReasons).toEqual(a.CancellationReasons);
    expect(b.Item).toEqual(a.Item);
    expect(b.$fault).toBe('client');
    expect(b.$metadata).toMatchObject({ httpStatusCode: 400, requestId: 'REQ1', attempts: 1 });
    expect(r.own.requests).toHaveLength(r.sdk.requests.length);
  });

  it('retries throttling and 5xx as the SDK does (4 attempts), then fails with the last error', async () => {
    const throttled = () => json({ __type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException', message: 'Rate of requests exceeds the allowed throughput' }, 400);
    const r = await both(() => [new sdk.GetCommand({ TableName: 't', Key: key }), new own.GetCommand({ TableName: 't', Key: key })], throttled);
    expect(r.sdk.requests).toHaveLength(4);
    expect(r.own.requests).toHaveLength(4);
    const b = (r.own.result as { error: Error & { $metadata: object } }).error;
    expect(b.name).toBe('ProvisionedThroughputExceededException');
    expect(b.$metadata).toMatchObject({ httpStatusCode: 400, attempts: 4 });

    let n = 0;
    fake.reset(() => (++n < 3 ? { status: 503, body: 'Service Unavailable' } : json({ Item: { pk: { S: 'ok' } } })));
    expect(strip(await ours.send(new own.GetCommand({ TableName: 't', Key: key })))).toEqual({ Item: { pk: 'ok' } });
    expect(fake.requests).toHaveLength(3);
  }, 30_000);

  it('reads a number beyond the safe integers as a BigInt, and refuses one that is neither, as the SDK does', async () => {
    const r = await both(() => [new sdk.GetCommand({ TableName: 't', Key: key }), new own.GetCommand({ TableName: 't', Key: key })], ok({ Item: { n: { N: '1.5e300' } } }));
    expect(String((r.own.result as { error: Error }).error)).toBe(String((r.sdk.result as { error: Error }).error));
    expect(String((r.own.result as { error: Error }).error)).toMatch(/can't be converted to BigInt/);
  });

  it('retries a connection dropped before the answer, and one dropped while the answer arrives', async () => {
    let n = 0;
    const { createServer } = await import('node:http');
    const server = createServer((req, res) => {
      n++;
      if (n === 1) {
        req.socket.destroy();
        return;
      }
      if (n === 2) {
        // the answer starts, then the connection drops halfway through its body
        res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0', 'content-length': '100' });
        res.write('{"Item":{"pk":');
        setTimeout(() => req.socket.destroy(), 20);
        return;
      }
      req.resume();
      req.on('end', () => res.end(JSON.stringify({ Item: { pk: { S: 'back' } } })));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const client = new own.DocumentClient({ endpoint: `http://127.0.0.1:${(server.address() as { port: number }).port}`, maxAttempts: 4 });
      expect(strip(await client.send(new own.GetCommand({ TableName: 't', Key: key })))).toEqual({ Item: { pk: 'back' } });
      expect(n).toBe(3);
    } finally {
      server.close();
    }
  });

  it("signs with the environment's credentials (Lambda's), or with a source a CLI installs", async () => {
    const { useCredentials } = await import('../../shared/aws/signed-http.js');
    const { envCredentials } = await import('../../shared/aws/sigv4.js');
    fake.reset(ok({}));
    await ours.send(new own.GetCommand({ TableName: 't', Key: key }));
    useCredentials(async () => ({ accessKeyId: 'AKIDPROFILE', secretAccessKey: 's', sessionToken: 'sso-token' }));
    try {
      await ours.send(new own.GetCommand({ TableName: 't', Key: key }));
    } finally {
      useCredentials(() => envCredentials());
    }
    expect(fake.requests.map((r) => String(r.headers.authorization).split('/')[0])).toEqual(['AWS4-HMAC-SHA256 Credential=AKIDTEST', 'AWS4-HMAC-SHA256 Credential=AKIDPROFILE']);
    expect(fake.requests.map((r) => r.headers['x-amz-security-token'])).toEqual([undefined, 'sso-token']);
    expect(() => envCredentials({})).toThrow(/AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set/);
  });

  it('tells observers each command sent, once per command', async () => {
    fake.reset(ok({}));
    const seen: string[] = [];
    const stop = ours.observe((op) => seen.push(op));
    await ours.send(new own.GetCommand({ TableName: 't', Key: key }));
    await ours.send(new own.TransactWriteCommand({ TransactItems: [{ Delete: { TableName: 't', Key: key } }] }));
    stop();
    await ours.send(new own.GetCommand({ TableName: 't', Key: key }));
    expect(seen).toEqual(['GetItem', 'TransactWriteItems']);
  });
});
