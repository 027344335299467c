import type {
  BatchGetCommandInput,
  BatchGetCommandOutput,
  BatchWriteCommandInput,
  BatchWriteCommandOutput,
  DeleteCommandInput,
  DeleteCommandOutput,
  ExecuteStatementCommandInput,
  ExecuteStatementCommandOutput,
  GetCommandInput,
  GetCommandOutput,
  PutCommandInput,
  PutCommandOutput,
  QueryCommandInput,
  QueryCommandOutput,
  TransactWriteCommandInput,
  TransactWriteCommandOutput,
  UpdateCommandInput,
  UpdateCommandOutput,
} from '@aws-sdk/lib-dynamodb';
import { convertToAttr } from '@aws-sdk/util-dynamodb';
import { httpRequest, jsonError, sendForText, signedClient } from '../aws/signed-http.js';
import { dnsSuffix, envRegion } from '../aws/sigv4.js';

/**
 * The DynamoDB document client the service uses: the commands of @aws-sdk/lib-dynamodb it calls,
 * with the same inputs, outputs and errors, sent over DynamoDB's JSON protocol (AWS JSON 1.0,
 * `X-Amz-Target: DynamoDB_20120810.<Operation>`), signed with SigV4. Values are marshalled by
 * @aws-sdk/util-dynamodb (`removeUndefinedValues`, no class instances as maps) and unmarshalled
 * as the document client does (`wrapNumbers: false`). The SDK client (334 KiB minified with its
 * credential chain) is what every function bundled before; this one is a few KiB
 * (docs/cold-start.md). Errors are named by DynamoDB's `__type` (`ConditionalCheckFailedException`,
 * `TransactionCanceledException` with its raw `CancellationReasons`, …) with `$metadata`, and
 * throttling, 5xx and dropped connections are retried as the SDK's standard retry does.
 */

/** A command: the operation it calls and its input (the document client's input shape). */
export abstract class DocCommand<Input, Output> {
  abstract readonly operation: string;
  /** Only carries the output type. */
  declare readonly output?: Output;
  constructor(readonly input: Input) {}
}

export class GetCommand extends DocCommand<GetCommandInput, GetCommandOutput> {
  readonly operation = 'GetItem';
}
export class PutCommand extends DocCommand<PutCommandInput, PutCommandOutput> {
  readonly operation = 'PutItem';
}
export class UpdateCommand extends DocCommand<UpdateCommandInput, UpdateCommandOutput> {
  readonly operation = 'UpdateItem';
}
export class DeleteCommand extends DocCommand<DeleteCommandInput, DeleteCommandOutput> {
  readonly operation = 'DeleteItem';
}
export class QueryCommand extends DocCommand<QueryCommandInput, QueryCommandOutput> {
  readonly operation = 'Query';
}
export class BatchGetCommand extends DocCommand<BatchGetCommandInput, BatchGetCommandOutput> {
  readonly operation = 'BatchGetItem';
}
export class BatchWriteCommand extends DocCommand<BatchWriteCommandInput, BatchWriteCommandOutput> {
  readonly operation = 'BatchWriteItem';
}
export class TransactWriteCommand extends DocCommand<TransactWriteCommandInput, TransactWriteCommandOutput> {
  readonly operation = 'TransactWriteItems';
}
export class ExecuteStatementCommand extends DocCommand<ExecuteStatementCommandInput, ExecuteStatementCommandOutput> {
  readonly operation = 'ExecuteStatement';
}

export type { BatchGetCommandInput, QueryCommandInput, TransactWriteCommandInput, UpdateCommandInput } from '@aws-sdk/lib-dynamodb';

type AttributeValue = Record<string, unknown>;
const MARSHALL = { removeUndefinedValues: true, convertClassInstanceToMap: false } as const;

/** A map of native values as DynamoDB attribute values (undefined members dropped). */
const marshallMap = (value: unknown): Record<string, AttributeValue> => (convertToAttr(value, MARSHALL) as unknown as { M: Record<string, AttributeValue> }).M;

/** Document-client fields whose values are items, keys or expression values (of inputs and outputs). */
const ITEM_MAPS = new Set(['Key', 'Item', 'ExclusiveStartKey', 'ExpressionAttributeValues', 'LastEvaluatedKey', 'Attributes']);
/** Fields holding lists of items or keys. */
const ITEM_LISTS = new Set(['Keys', 'Items']);
/** Fields that contain further requests (batch and transaction members): walked into. */
const CONTAINERS = new Set(['RequestItems', 'TransactItems', 'Put', 'Update', 'Delete', 'ConditionCheck', 'PutRequest', 'DeleteRequest', 'UnprocessedKeys', 'UnprocessedItems']);
/** Containers keyed by table name. */
const BY_TABLE = new Set(['RequestItems', 'UnprocessedKeys', 'UnprocessedItems']);

/**
 * Walks a request or an answer, converting the values under the item fields with `item` and the
 * PartiQL parameters with `value`; `byTable` when `node`'s keys are table names.
 */
function walk(node: unknown, item: (map: unknown) => unknown, value: (v: unknown) => unknown, byTable = false): unknown {
  if (Array.isArray(node)) return node.map((n) => walk(n, item, value));
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (v === undefined) continue;
    if (byTable) out[k] = walk(v, item, value);
    else if (ITEM_MAPS.has(k)) out[k] = item(v);
    else if (ITEM_LISTS.has(k) && Array.isArray(v)) out[k] = v.map(item);
    else if (k === 'Parameters' && Array.isArray(v)) out[k] = v.map(value);
    // BatchGetItem's answer: the items of each table
    else if (k === 'Responses' && typeof v === 'object' && !Array.isArray(v)) out[k] = Object.fromEntries(Object.entries(v as Record<string, unknown[]>).map(([table, items]) => [table, items.map(item)]));
    else if (CONTAINERS.has(k)) out[k] = walk(v, item, value, BY_TABLE.has(k));
    else out[k] = v;
  }
  return out;
}

/** The JSON body of a request: binary values base64, as the JSON protocol carries them. */
function requestBody(input: unknown): string {
  const wire = walk(input, marshallMap, (v) => convertToAttr(v, MARSHALL));
  return JSON.stringify(wire, function (this: Record<string, unknown>, key, v) {
    const raw = this[key];
    return raw instanceof Uint8Array || raw instanceof ArrayBuffer ? Buffer.from(raw as Uint8Array).toString('base64') : v;
  });
}

/** An attribute value as the document client gives it (`wrapNumbers: false`; binary as bytes). */
export function toNative(av: AttributeValue): unknown {
  for (const [type, v] of Object.entries(av)) {
    if (v === undefined) continue;
    switch (type) {
      case 'NULL':
        return null;
      case 'BOOL':
        return Boolean(v);
      case 'N':
        return toNumber(v as string);
      case 'S':
        return v;
      case 'B':
        return new Uint8Array(Buffer.from(v as string, 'base64'));
      case 'L':
        return (v as AttributeValue[]).map(toNative);
      case 'M':
        return toNativeMap(v as Record<string, AttributeValue>);
      case 'NS':
        return new Set((v as string[]).map(toNumber));
      case 'SS':
        return new Set(v as string[]);
      case 'BS':
        return new Set((v as string[]).map((b) => new Uint8Array(Buffer.from(b, 'base64'))));
      default:
        throw new Error(`Unsupported type passed: ${type}`);
    }
  }
  throw new Error(`No value defined: ${JSON.stringify(av)}`);
}

function toNativeMap(map: Record<string, AttributeValue>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(map)) out[k] = toNative(v);
  return out;
}

/** A number as util-dynamodb converts it: beyond the safe integers, a BigInt (or an error). */
function toNumber(s: string): number | bigint {
  const n = Number(s);
  if ((n > Number.MAX_SAFE_INTEGER || n < Number.MIN_SAFE_INTEGER) && Number.isFinite(n)) {
    try {
      return BigInt(s);
    } catch {
      throw new Error(`${s} can't be converted to BigInt. Set options.wrapNumbers to get string value.`);
    }
  }
  return n;
}

/** DynamoDB's regional endpoint (or `endpoint`, DynamoDB Local). */
function endpointUrl(endpoint: string | undefined): URL {
  if (endpoint) return new URL(`${endpoint.replace(/\/+$/, '')}/`);
  const region = envRegion();
  return new URL(`https://dynamodb.${region}.${dnsSuffix(region)}/`);
}

export interface DocumentClientOptions {
  /** DynamoDB Local's URL; DynamoDB's regional endpoint when unset. */
  endpoint?: string;
  /** Attempts in all for throttling, 5xx and dropped connections (the SDK's `maxAttempts`). */
  maxAttempts?: number;
}

/** Sends the document client's commands; one per process, like the SDK client it replaces. */
export class DocumentClient {
  private readonly client = signedClient('dynamodb');
  private readonly observers = new Set<(operation: string) => void>();
  /** Resolved on the first command (the region is read then), then kept. */
  private url: URL | undefined;
  constructor(private readonly options: DocumentClientOptions = {}) {}

  /** Calls `listener` with the operation of every command sent (tests and benchmarks count requests); returns the unsubscribe. */
  observe(listener: (operation: string) => void): () => void {
    this.observers.add(listener);
    return () => this.observers.delete(listener);
  }

  async send<Input, Output>(command: DocCommand<Input, Output>): Promise<Output> {
    for (const observer of this.observers) observer(command.operation);
    const body = requestBody(command.input);
    const headers = { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': `DynamoDB_20120810.${command.operation}` };
    const url = (this.url ??= endpointUrl(this.options.endpoint));
    const res = await sendForText(this.client, () => httpRequest('POST', url, headers, body), jsonError, { maxAttempts: this.options.maxAttempts ?? 3 });
    const text = res.text;
    const out = walk(text ? JSON.parse(text) : {}, (m) => toNativeMap(m as Record<string, AttributeValue>), (v) => toNative(v as AttributeValue)) as Record<string, unknown>;
    return { ...out, $metadata: { httpStatusCode: res.statusCode, requestId: res.headers['x-amzn-requestid'] } } as Output;
  }
}
