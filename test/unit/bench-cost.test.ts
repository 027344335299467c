import { describe, expect, it } from 'vitest';
import {
  awsCost,
  dynamodbReadUnits,
  dynamodbWriteUnits,
  lambdaGbSeconds,
  s3RequestTier,
  sqsRequestsOf,
  unitsOfRequest,
  usageTally,
} from '../../bench/aws-cost.js';
import { AWS_PRICES, dollars } from '../../bench/aws-prices.js';
import { FUNCTION_MEMORY_MB } from '../../infra/function-memory.js';

const KiB = 1024;
const cost = (usage: ReturnType<typeof usageTally>['usage']) =>
  Object.fromEntries(awsCost(usage).lines.map((l) => [`${l.service} ${l.unit}`, l.usd]));

describe('the AWS cost model of bench:runs', () => {
  it('prices every dimension from one table, each price with its unit, source and date', () => {
    for (const [name, price] of Object.entries(AWS_PRICES)) {
      expect(price.usd, name).toBeGreaterThan(0);
      expect(price.unit, name).not.toBe('');
      expect(price.source, name).toMatch(/^https:\/\/aws\.amazon\.com\//);
      expect(price.taken, name).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
    expect(dollars(2_000_000, AWS_PRICES.lambdaRequests)).toBeCloseTo(0.4, 12);
  });

  it('Lambda: a request per invocation, and GB-seconds of the duration rounded up to the ms times the memory', () => {
    // 1,000.2 ms bills as 1,001 ms; at 1,024 MB that is 1.001 GB-s; 250 ms at 512 MB is 0.125 GB-s.
    expect(lambdaGbSeconds(1000.2, 1024)).toBeCloseTo(1.001, 12);
    expect(lambdaGbSeconds(250, 512)).toBeCloseTo(0.125, 12);
    expect(lambdaGbSeconds(0.3, 256)).toBeCloseTo(0.00025, 12);
    const tally = usageTally();
    tally.local({ kind: 'invocation', handler: 'jobs/runner', ms: 1000.2 });
    tally.local({ kind: 'invocation', handler: 'runs/get', ms: 250 });
    tally.local({ kind: 'invocation', handler: 'authorizer', ms: 250 });
    expect(tally.usage.lambda.byHandler['jobs/runner']!.memoryMb).toBe(FUNCTION_MEMORY_MB.job);
    expect(tally.usage.lambda.byHandler.authorizer!.memoryMb).toBe(FUNCTION_MEMORY_MB.api);
    expect(tally.usage.lambda.invocations).toBe(3);
    expect(tally.usage.lambda.gbSeconds).toBeCloseTo(1.251, 12);
    const usd = cost(tally.usage);
    // 3 requests at $0.20 per million; 1.251 GB-s at $0.0000133334.
    expect(usd['Lambda requests']).toBeCloseTo(0.0000006, 15);
    expect(usd['Lambda GB-seconds (arm64)']).toBeCloseTo(0.0000166800834, 15);
  });

  it('DynamoDB: reads per 4 KB (half eventually consistent, double in a transaction), writes per 1 KB (double in a transaction)', () => {
    expect(dynamodbReadUnits(4 * KiB, 'strong')).toBe(1);
    expect(dynamodbReadUnits(4 * KiB + 1, 'strong')).toBe(2);
    expect(dynamodbReadUnits(3 * KiB, 'eventual')).toBe(0.5);
    expect(dynamodbReadUnits(8 * KiB, 'eventual')).toBe(1);
    expect(dynamodbReadUnits(8 * KiB, 'transactional')).toBe(4);
    // A read that finds nothing still costs its first unit.
    expect(dynamodbReadUnits(0, 'eventual')).toBe(0.5);
    expect(dynamodbWriteUnits(500, false)).toBe(1);
    expect(dynamodbWriteUnits(KiB, false)).toBe(1);
    expect(dynamodbWriteUnits(KiB + 1, false)).toBe(2);
    expect(dynamodbWriteUnits(3 * KiB, true)).toBe(6);
    // 1 million WRU at $0.625 and 2 million RRU at $0.125 per million.
    const tally = usageTally();
    tally.capacity({ operation: 'PutItem', input: {}, consumed: [{ CapacityUnits: 1_000_000 }] });
    tally.capacity({ operation: 'Query', input: {}, consumed: [{ CapacityUnits: 2_000_000 }] });
    const usd = cost(tally.usage);
    expect(usd['DynamoDB write request units']).toBeCloseTo(0.625, 12);
    expect(usd['DynamoDB read request units']).toBeCloseTo(0.25, 12);
  });

  it('DynamoDB: takes the units each request reports, by kind when it says, else by its operation', () => {
    expect(unitsOfRequest({ operation: 'GetItem', input: {}, consumed: [{ CapacityUnits: 0.5 }] })).toEqual({
      read: 0.5,
      write: 0,
      estimated: false,
    });
    // A transaction of a 3 KB put and an update of a 3 KB item with one index: 12 for the table, 6 for the index.
    expect(
      unitsOfRequest({ operation: 'TransactWriteItems', input: {}, consumed: [{ CapacityUnits: 18 }] }).write,
    ).toBe(18);
    // One entry per table of a BatchGetItem.
    expect(
      unitsOfRequest({ operation: 'BatchGetItem', input: {}, consumed: [{ CapacityUnits: 1 }, { CapacityUnits: 1.5 }] })
        .read,
    ).toBe(2.5);
    expect(
      unitsOfRequest({
        operation: 'TransactWriteItems',
        input: {},
        consumed: [{ CapacityUnits: 6, ReadCapacityUnits: 2, WriteCapacityUnits: 4 }],
      }),
    ).toEqual({ read: 2, write: 4, estimated: false });
    expect(
      unitsOfRequest({
        operation: 'ExecuteStatement',
        input: { Statement: 'SELECT * FROM t' },
        consumed: [{ CapacityUnits: 1 }],
      }).read,
    ).toBe(1);
  });

  it('DynamoDB: a write refused by its condition reports nothing and is estimated from its payload', () => {
    // The payload: {"Item":{"pk":"a","v":"xxx…"}} with 1,500 x is 1,526 bytes: 2 WRU.
    const put = { operation: 'PutItem', input: { Item: { pk: 'a', v: 'x'.repeat(1500) } } };
    expect(unitsOfRequest({ ...put, error: 'ConditionalCheckFailedException' })).toEqual({
      read: 0,
      write: 2,
      estimated: true,
    });
    // Two small items of a cancelled transaction: 2 WRU each.
    const transaction = { operation: 'TransactWriteItems', input: { TransactItems: [{ Put: {} }, { Update: {} }] } };
    expect(unitsOfRequest({ ...transaction, error: 'TransactionCanceledException' })).toEqual({
      read: 0,
      write: 4,
      estimated: true,
    });
    // A request DynamoDB refused before doing anything costs nothing.
    expect(unitsOfRequest({ ...put, error: 'ValidationException' })).toEqual({ read: 0, write: 0, estimated: false });
    const tally = usageTally();
    tally.capacity({ ...put, error: 'ConditionalCheckFailedException' });
    expect(tally.usage.dynamodb).toMatchObject({
      requests: 1,
      writeUnits: 2,
      estimatedWriteUnits: 2,
      failedRequests: 1,
      failures: { 'PutItem ConditionalCheckFailedException': 1 },
    });
  });

  it('SQS: each API call per 64 KiB chunk of its payload; sends in the service’s batches; a receive, and a delete when a message was finished', () => {
    expect(sqsRequestsOf(0)).toBe(1);
    expect(sqsRequestsOf(64 * KiB)).toBe(1);
    expect(sqsRequestsOf(64 * KiB + 1)).toBe(2);
    expect(sqsRequestsOf(256 * KiB)).toBe(4);
    const tally = usageTally();
    // 25 bodies of 1 KiB: batches of 10, 10 and 5, each under one chunk.
    tally.local({ kind: 'send', queue: 'run', bodies: Array.from({ length: 25 }, () => 'x'.repeat(KiB)) });
    expect(tally.usage.sqs.sendRequests).toBe(3);
    // 3 bodies of 100 KiB: 200 KiB in one batch (4 chunks), 100 KiB in the next (2 chunks).
    tally.local({ kind: 'send', queue: 'run', bodies: Array.from({ length: 3 }, () => 'x'.repeat(100 * KiB)) });
    expect(tally.usage.sqs.sendRequests).toBe(3 + 6);
    expect(tally.usage.sqs.messagesSent).toBe(28);
    tally.local({ kind: 'delivery', queue: 'run', bodies: ['x'.repeat(KiB)], deleted: 1 });
    tally.local({ kind: 'delivery', queue: 'run', bodies: ['x'.repeat(KiB)], deleted: 0 });
    tally.local({
      kind: 'delivery',
      queue: 'evaluation',
      bodies: Array.from({ length: 10 }, () => 'x'.repeat(10 * KiB)),
      deleted: 9,
    });
    expect(tally.usage.sqs).toMatchObject({ receiveRequests: 1 + 1 + 2, deleteRequests: 2 });
    // 9 + 4 + 2 = 15 requests at $0.40 per million.
    expect(cost(tally.usage)['SQS requests']).toBeCloseTo(0.000006, 15);
  });

  it('S3: PUT, COPY, POST and LIST at one price, GET and the others at another, DELETE free', () => {
    expect(s3RequestTier('PUT', '/bucket/orgs/o/file.json')).toBe('tier1');
    expect(s3RequestTier('POST', '/bucket/key?uploads')).toBe('tier1');
    expect(s3RequestTier('GET', '/bucket?list-type=2&prefix=orgs/')).toBe('tier1');
    expect(s3RequestTier('GET', '/bucket/orgs/o/file.json')).toBe('tier2');
    expect(s3RequestTier('HEAD', '/bucket/orgs/o/file.json')).toBe('tier2');
    expect(s3RequestTier('DELETE', '/bucket/orgs/o/file.json')).toBe('free');
    expect(s3RequestTier('POST', '/bucket?delete')).toBe('free');
    const tally = usageTally();
    for (let i = 0; i < 1000; i++) {
      tally.local({ kind: 's3', method: 'PUT', path: '/bucket/k' });
      tally.local({ kind: 's3', method: 'GET', path: '/bucket/k' });
      tally.local({ kind: 's3', method: 'DELETE', path: '/bucket/k' });
    }
    const usd = cost(tally.usage);
    expect(usd['S3 PUT/COPY/POST/LIST requests']).toBeCloseTo(0.005, 12);
    expect(usd['S3 GET/other requests']).toBeCloseTo(0.0004, 12);
    expect(tally.usage.s3.free).toBe(1000);
  });

  it('API Gateway: a REST request per request the authorizer let through; the total adds every line', () => {
    const tally = usageTally();
    for (let i = 0; i < 1000; i++) tally.local({ kind: 'api', method: 'GET', path: '/runs/run_1' });
    tally.local({ kind: 'invocation', handler: 'runs/get', ms: 1000 });
    const { lines, total } = awsCost(tally.usage);
    // 1,000 requests at $3.50 per million; one Lambda request; 0.5 GB-s.
    expect(cost(tally.usage)['API Gateway REST requests']).toBeCloseTo(0.0035, 12);
    expect(total).toBeCloseTo(0.0035 + 0.0000002 + 0.5 * 0.0000133334, 12);
    expect(lines.reduce((s, l) => s + l.usd, 0)).toBe(total);
  });
});
