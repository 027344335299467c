import { GetCommand } from './dynamodb.js';
import { doc, tableName } from './client.js';
import { keys } from './keys.js';
import { batchGet } from './query.js';
import { transact, type TransactItem } from './catalog.js';
import { GuardTakenError } from './errors.js';

/**
 * What OpenTelemetry ingestion stores beside sessions, turns and spans (DESIGN.md §13): the trace
 * → turn link of each OTel trace and the customId → session claim, both written once, in the
 * transaction that creates what they point at.
 */

type Item = Record<string, unknown>;

export interface TraceLink {
  traceId: string;
  sessionId: string;
  inferenceResultId: string;
  turnIndex: number;
}

/** The links of these traces of an organization (absent traces are missing from the map). */
export async function getTraceLinks(orgId: string, traceIds: string[]): Promise<Map<string, TraceLink>> {
  const items = await batchGet(
    traceIds.map((t) => keys.otelTrace(orgId, t)),
    true,
  );
  return new Map(items.map((i) => [String(i.traceId), { traceId: String(i.traceId), sessionId: String(i.sessionId), inferenceResultId: String(i.inferenceResultId), turnIndex: Number(i.turnIndex) }]));
}

/** The Put of a trace's link, only if the trace has none yet. */
export function traceLinkPut(orgId: string, link: TraceLink, createdAt: string): TransactItem {
  return {
    Put: {
      TableName: tableName,
      Item: { ...keys.otelTrace(orgId, link.traceId), entity: 'OTELTRACE', organizationId: orgId, ...link, createdAt },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

/** The session id claimed for a customId, if any. */
export async function getSessionClaim(orgId: string, customId: string): Promise<string | undefined> {
  const out = await doc.send(new GetCommand({ TableName: tableName, Key: keys.otelSessionClaim(orgId, customId), ConsistentRead: true }));
  return out.Item ? String(out.Item.sessionId) : undefined;
}

/** The Put of a customId's claim: only when there is none, or when it still names `previous` (a deleted session). */
export function sessionClaimPut(orgId: string, customId: string, sessionId: string, previous: string | undefined): TransactItem {
  return {
    Put: {
      TableName: tableName,
      Item: { ...keys.otelSessionClaim(orgId, customId), entity: 'OTELCLAIM', organizationId: orgId, customId, sessionId },
      ConditionExpression: previous ? 'attribute_not_exists(pk) OR sessionId = :prev' : 'attribute_not_exists(pk)',
      ...(previous ? { ExpressionAttributeValues: { ':prev': previous } } : {}),
    },
  };
}

/** Which of these span ids are stored, and by which organization. */
export async function storedSpanOwners(ids: string[]): Promise<Map<string, string>> {
  const items = await batchGet(
    ids.map((id) => keys.span(id)),
    true,
  );
  return new Map(items.map((i) => [String(i.id), String(i.organizationId)]));
}

/**
 * Writes span items (at most 100, one transaction), each only if its id is new. Ids found
 * stored meanwhile are left out and the rest written again; returns the ids left out.
 */
export async function putNewSpanItems(items: Item[]): Promise<Set<string>> {
  const skipped = new Set<string>();
  let pending = items;
  while (pending.length > 0) {
    let failed: number[] = [];
    try {
      await transact(
        pending.map((Item) => ({ Put: { TableName: tableName, Item, ConditionExpression: 'attribute_not_exists(pk)' } })),
        (codes) => {
          failed = codes.flatMap((c, i) => (c === 'ConditionalCheckFailed' ? [i] : []));
          return failed.length ? new GuardTakenError('some spans exist') : undefined;
        },
      );
      return skipped;
    } catch (error) {
      if (!(error instanceof GuardTakenError)) throw error;
    }
    const gone = new Set(failed);
    for (const i of gone) skipped.add(String(pending[i]!.id));
    pending = pending.filter((_, i) => !gone.has(i));
  }
  return skipped;
}
