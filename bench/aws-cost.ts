/**
 * What a workload of the local runtime would cost on AWS: the operations it counted (bench/runs.ts
 * listens to infra/local/usage.ts and to the document client's `observeCapacity`) turned into
 * billed units, and the units into dollars at the list prices of bench/aws-prices.ts. Pure: the
 * pricing rules are unit-tested (test/unit/bench-cost.test.ts).
 *
 * - API Gateway: one REST request per request the authorizer let through.
 * - Lambda: one request per invocation of a route, the authorizer or a job; GB-seconds from each
 *   invocation's duration, rounded up to the millisecond, times the memory the stack gives its
 *   function (infra/function-memory.ts).
 * - DynamoDB on-demand: the read and write request units each request consumed, as DynamoDB
 *   reports them (the table and every index): the item sizes are measured by the database, which
 *   applies the rules of `dynamodbReadUnits` / `dynamodbWriteUnits`. A write refused by its
 *   condition, or a transaction cancelled (a condition, a conflict), reports nothing: it is counted
 *   as billed, estimated from its payload's size (an assumption on the high side).
 * - SQS: each send is the service's batches (`batchesOf`, 10 bodies or 240 KiB), each batch one
 *   SendMessageBatch; each delivery to a consumer one ReceiveMessage and, when the consumer finished
 *   any of its messages, one DeleteMessageBatch; every call billed per 64 KiB chunk of its payload.
 * - S3: PUT, COPY, POST and LIST requests at one price, GET and the others at another, DELETE free.
 */
import { batchesOf } from '../shared/queue/sqs.js';
import { memoryOfHandler } from '../infra/function-memory.js';
import type { LocalUsage } from '../infra/local/usage.js';
import { AWS_PRICES, dollars, type AwsPrices } from './aws-prices.js';

/** SQS bills each 64 KiB chunk of a request's payload as one request. */
export const SQS_CHUNK_BYTES = 64 * 1024;
/** DynamoDB reads in 4 KB units and writes in 1 KB units. */
export const DYNAMODB_READ_UNIT_BYTES = 4 * 1024;
export const DYNAMODB_WRITE_UNIT_BYTES = 1024;

/** The SQS requests one API call carrying `payloadBytes` is billed as: one per 64 KiB chunk, at least one. */
export const sqsRequestsOf = (payloadBytes: number): number => Math.max(1, Math.ceil(payloadBytes / SQS_CHUNK_BYTES));

/** The GB-seconds Lambda bills for one invocation: its duration rounded up to the millisecond, times its memory in GB (1,024 MB). */
export const lambdaGbSeconds = (ms: number, memoryMb: number): number => (Math.ceil(ms) / 1000) * (memoryMb / 1024);

export type ReadConsistency = 'eventual' | 'strong' | 'transactional';

/** Read request units of reading `bytes` (an item, or a Query's items together): per 4 KB, half eventually consistent, double in a transaction. */
export function dynamodbReadUnits(bytes: number, consistency: ReadConsistency): number {
  const chunks = Math.max(1, Math.ceil(bytes / DYNAMODB_READ_UNIT_BYTES));
  return chunks * (consistency === 'eventual' ? 0.5 : consistency === 'strong' ? 1 : 2);
}

/** Write request units of writing an item of `bytes`: per 1 KB, double in a transaction. */
export function dynamodbWriteUnits(bytes: number, transactional: boolean): number {
  return Math.max(1, Math.ceil(bytes / DYNAMODB_WRITE_UNIT_BYTES)) * (transactional ? 2 : 1);
}

/** The capacity DynamoDB reports for a request (a ConsumedCapacity entry: the table and its indexes together). */
export interface ReportedCapacity {
  CapacityUnits?: number;
  ReadCapacityUnits?: number;
  WriteCapacityUnits?: number;
}

/** One DynamoDB request as the document client's `observeCapacity` reports it. */
export interface CapacityReport {
  operation: string;
  input: Record<string, unknown>;
  consumed?: readonly ReportedCapacity[];
  error?: string;
}

const READ_OPERATIONS = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan', 'TransactGetItems']);
/** The failures DynamoDB still bills: the write was attempted and its condition (or a transaction's) refused it. */
const BILLED_FAILURES = new Set(['ConditionalCheckFailedException', 'TransactionCanceledException']);

const isRead = (r: CapacityReport): boolean =>
  READ_OPERATIONS.has(r.operation) ||
  (r.operation === 'ExecuteStatement' && /^\s*select\b/i.test(String(r.input.Statement ?? '')));

const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');

/**
 * The read and write request units of one request: those DynamoDB reported (split by kind when it
 * says, else by the operation), or, for a write refused by its condition (no report), estimated from
 * its payload (each item of a transaction at transactional rates): `estimated` then.
 */
export function unitsOfRequest(r: CapacityReport): { read: number; write: number; estimated: boolean } {
  if (r.error !== undefined) {
    if (!BILLED_FAILURES.has(r.error) || isRead(r)) return { read: 0, write: 0, estimated: false };
    const items = r.operation === 'TransactWriteItems' ? ((r.input.TransactItems as unknown[] | undefined) ?? []) : [];
    const write =
      items.length > 0
        ? items.reduce<number>((sum, item) => sum + dynamodbWriteUnits(jsonBytes(item), true), 0)
        : dynamodbWriteUnits(jsonBytes(r.input), false);
    return { read: 0, write, estimated: true };
  }
  let read = 0;
  let write = 0;
  for (const c of r.consumed ?? []) {
    if (c.ReadCapacityUnits !== undefined || c.WriteCapacityUnits !== undefined) {
      read += c.ReadCapacityUnits ?? 0;
      write += c.WriteCapacityUnits ?? 0;
    } else if (isRead(r)) read += c.CapacityUnits ?? 0;
    else write += c.CapacityUnits ?? 0;
  }
  return { read, write, estimated: false };
}

/** The S3 price a request is billed at: tier 1 (PUT, COPY, POST, LIST), tier 2 (GET, HEAD, the others) or free (DELETE). */
export function s3RequestTier(method: string, path: string): 'tier1' | 'tier2' | 'free' {
  const m = method.toUpperCase();
  const [pathname = '', query = ''] = path.split('?');
  // Path-style addresses: /<bucket>/<key>; no key is a request on the bucket (a GET lists it).
  const hasKey = pathname.replace(/^\/+/, '').includes('/') && !pathname.endsWith('/');
  if (m === 'DELETE' || (m === 'POST' && /(^|&)delete(=|&|$)/.test(query))) return 'free';
  if (m === 'PUT' || m === 'POST' || (m === 'GET' && !hasKey)) return 'tier1';
  return 'tier2';
}

/** What a workload used, in the units AWS bills. */
export interface AwsUsage {
  apiRequests: number;
  lambda: {
    invocations: number;
    gbSeconds: number;
    /** By function (its handler module): invocations, milliseconds run, GB-seconds billed, memory. */
    byHandler: Record<string, { invocations: number; ms: number; gbSeconds: number; memoryMb: number }>;
  };
  dynamodb: {
    requests: number;
    readUnits: number;
    writeUnits: number;
    /** Of the write units, those estimated for writes refused by their condition (no capacity reported). */
    estimatedWriteUnits: number;
    failedRequests: number;
    /** The failed requests by `<operation> <error>`. */
    failures: Record<string, number>;
  };
  sqs: { sendRequests: number; receiveRequests: number; deleteRequests: number; messagesSent: number };
  s3: { tier1: number; tier2: number; free: number };
}

/** Adds up what the local runtime and the document client report into `AwsUsage`. */
export function usageTally() {
  const usage: AwsUsage = {
    apiRequests: 0,
    lambda: { invocations: 0, gbSeconds: 0, byHandler: {} },
    dynamodb: { requests: 0, readUnits: 0, writeUnits: 0, estimatedWriteUnits: 0, failedRequests: 0, failures: {} },
    sqs: { sendRequests: 0, receiveRequests: 0, deleteRequests: 0, messagesSent: 0 },
    s3: { tier1: 0, tier2: 0, free: 0 },
  };
  const bytesOf = (bodies: readonly string[]) => bodies.reduce((n, b) => n + Buffer.byteLength(b, 'utf8'), 0);
  return {
    usage,
    local(u: LocalUsage): void {
      switch (u.kind) {
        case 'api':
          usage.apiRequests++;
          return;
        case 'invocation': {
          const memoryMb = memoryOfHandler(u.handler);
          const gbSeconds = lambdaGbSeconds(u.ms, memoryMb);
          const row = (usage.lambda.byHandler[u.handler] ??= { invocations: 0, ms: 0, gbSeconds: 0, memoryMb });
          row.invocations++;
          row.ms += u.ms;
          row.gbSeconds += gbSeconds;
          usage.lambda.invocations++;
          usage.lambda.gbSeconds += gbSeconds;
          return;
        }
        case 'send':
          usage.sqs.messagesSent += u.bodies.length;
          for (const batch of batchesOf([...u.bodies])) usage.sqs.sendRequests += sqsRequestsOf(bytesOf(batch));
          return;
        case 'delivery':
          usage.sqs.receiveRequests += sqsRequestsOf(bytesOf(u.bodies));
          // The receipt handles of at most 10 messages: far under one chunk.
          if (u.deleted > 0) usage.sqs.deleteRequests++;
          return;
        case 's3':
          usage.s3[s3RequestTier(u.method, u.path)]++;
          return;
      }
    },
    capacity(r: CapacityReport): void {
      const units = unitsOfRequest(r);
      usage.dynamodb.requests++;
      usage.dynamodb.readUnits += units.read;
      usage.dynamodb.writeUnits += units.write;
      if (units.estimated) usage.dynamodb.estimatedWriteUnits += units.write;
      if (r.error !== undefined) {
        usage.dynamodb.failedRequests++;
        const key = `${r.operation} ${r.error}`;
        usage.dynamodb.failures[key] = (usage.dynamodb.failures[key] ?? 0) + 1;
      }
    },
  };
}

export interface CostLine {
  service: string;
  quantity: number;
  unit: string;
  usd: number;
}

/** The dollars of each billed dimension of `usage`, and their total. */
export function awsCost(usage: AwsUsage, prices: AwsPrices = AWS_PRICES): { lines: CostLine[]; total: number } {
  const sqsRequests = usage.sqs.sendRequests + usage.sqs.receiveRequests + usage.sqs.deleteRequests;
  const lines: CostLine[] = [
    {
      service: 'API Gateway',
      quantity: usage.apiRequests,
      unit: 'REST requests',
      usd: dollars(usage.apiRequests, prices.apiGatewayRestRequests),
    },
    {
      service: 'Lambda',
      quantity: usage.lambda.invocations,
      unit: 'requests',
      usd: dollars(usage.lambda.invocations, prices.lambdaRequests),
    },
    {
      service: 'Lambda',
      quantity: usage.lambda.gbSeconds,
      unit: 'GB-seconds (arm64)',
      usd: dollars(usage.lambda.gbSeconds, prices.lambdaArmGbSeconds),
    },
    {
      service: 'DynamoDB',
      quantity: usage.dynamodb.readUnits,
      unit: 'read request units',
      usd: dollars(usage.dynamodb.readUnits, prices.dynamodbReadRequestUnits),
    },
    {
      service: 'DynamoDB',
      quantity: usage.dynamodb.writeUnits,
      unit: 'write request units',
      usd: dollars(usage.dynamodb.writeUnits, prices.dynamodbWriteRequestUnits),
    },
    { service: 'SQS', quantity: sqsRequests, unit: 'requests', usd: dollars(sqsRequests, prices.sqsRequests) },
    {
      service: 'S3',
      quantity: usage.s3.tier1,
      unit: 'PUT/COPY/POST/LIST requests',
      usd: dollars(usage.s3.tier1, prices.s3Tier1Requests),
    },
    {
      service: 'S3',
      quantity: usage.s3.tier2,
      unit: 'GET/other requests',
      usd: dollars(usage.s3.tier2, prices.s3Tier2Requests),
    },
  ];
  return { lines, total: lines.reduce((sum, l) => sum + l.usd, 0) };
}
