import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';

// The retry settings of the service's clients, on the real SDK against a local server playing
// DynamoDB and S3: faults neither DynamoDB Local nor s3rver produce on demand (5xx, throttling,
// a connection dropped before the answer). The clients read their endpoints at load.
const fake = await vi.hoisted(async () => {
  const { startFakeAws } = await import('../support/fake-aws.js');
  const server = await startFakeAws();
  Object.assign(process.env, {
    DYNAMODB_ENDPOINT: server.endpoint,
    S3_ENDPOINT: server.endpoint,
    AWS_REGION: 'eu-west-1',
    AWS_ACCESS_KEY_ID: 'AKIDTEST',
    AWS_SECRET_ACCESS_KEY: 'secret',
  });
  return server;
});
afterEach(() => {
  fake.reset();
  vi.restoreAllMocks();
});
afterAll(() => fake.close());

const { doc, observeRequests } = await import('../../shared/db/client.js');
const { putObject } = await import('../../shared/storage/s3.js');

const ddbError = (type: string) => ({
  status: type.includes('Throttling') ? 400 : 500,
  headers: { 'content-type': 'application/x-amz-json-1.0' },
  body: JSON.stringify({ __type: `com.amazonaws.dynamodb.v20120810#${type}`, message: type }),
});
const get = () => doc.send(new GetCommand({ TableName: 't', Key: { pk: 'a', sk: 'b' } }));

describe('DynamoDB client', () => {
  it('makes 4 attempts on throttling and 5xx, then fails with the last error', async () => {
    // No back-off between attempts (the SDK jitters it with Math.random): the count is what matters.
    vi.spyOn(Math, 'random').mockReturnValue(0);
    fake.reset(() => ddbError('ThrottlingException'));
    await expect(get()).rejects.toMatchObject({ name: 'ThrottlingException', $metadata: { attempts: 4 } });
    expect(fake.requests).toHaveLength(4);
    fake.reset(() => ddbError('InternalServerError'));
    await expect(get()).rejects.toMatchObject({
      name: 'InternalServerError',
      $metadata: { httpStatusCode: 500, attempts: 4 },
    });
  });

  it('succeeds when a retry does', async () => {
    let n = 0;
    fake.reset(() =>
      ++n < 3
        ? ddbError('InternalServerError')
        : {
            headers: { 'content-type': 'application/x-amz-json-1.0' },
            body: JSON.stringify({ Item: { pk: { S: 'a' }, n: { N: '7' } } }),
          },
    );
    expect((await get()).Item).toEqual({ pk: 'a', n: 7 });
    expect(fake.requests).toHaveLength(3);
  });

  it('retries a connection dropped before the answer', async () => {
    let n = 0;
    fake.reset(() =>
      ++n === 1 ? { drop: true } : { headers: { 'content-type': 'application/x-amz-json-1.0' }, body: '{}' },
    );
    expect((await get()).Item).toBeUndefined();
    expect(fake.requests).toHaveLength(2);
  });

  it('counts commands, not attempts, for the request-budget tests and benchmarks', async () => {
    const seen: string[] = [];
    const stop = observeRequests((op) => seen.push(op));
    fake.reset(() => ddbError('InternalServerError'));
    await get().catch(() => undefined);
    stop();
    await get().catch(() => undefined);
    expect(seen).toEqual(['GetItem']);
  });
});

describe('S3 client', () => {
  it('retries a 503 SlowDown (3 attempts), path-style on the local endpoint, without a checksum S3 does not require', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    fake.reset(() => ({
      status: 503,
      body: '<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>',
    }));
    await expect(putObject('k/x.json', '{}', 'application/json')).rejects.toMatchObject({
      name: 'SlowDown',
      $metadata: { httpStatusCode: 503, attempts: 3 },
    });
    expect(fake.requests).toHaveLength(3);
    expect(new URL(fake.requests[0]!.url, 'http://x').pathname).toBe(`/${process.env.BUCKET_NAME}/k/x.json`);
    expect(Object.keys(fake.requests[0]!.headers).filter((h) => h.startsWith('x-amz-checksum'))).toEqual([]);
  });
});
