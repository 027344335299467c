import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { doc, tableName } from './client.js';
import { keys } from './keys.js';
import { batchGet, queryPrefix } from './query.js';
import { batchDelete, batchPut } from './batch.js';
import { transact, type TransactItem } from './catalog.js';
import { GuardTakenError } from './errors.js';

/**
 * What OpenTelemetry ingestion stores beside sessions, turns and spans: the trace
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
  return new Map(
    items.map((i) => [
      String(i.traceId),
      {
        traceId: String(i.traceId),
        sessionId: String(i.sessionId),
        inferenceResultId: String(i.inferenceResultId),
        turnIndex: Number(i.turnIndex),
      },
    ]),
  );
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
  const out = await doc.send(
    new GetCommand({ TableName: tableName, Key: keys.otelSessionClaim(orgId, customId), ConsistentRead: true }),
  );
  return out.Item ? String(out.Item.sessionId) : undefined;
}

/** The Put of a customId's claim: only when there is none, or when it still names `previous` (a deleted session). */
export function sessionClaimPut(
  orgId: string,
  customId: string,
  sessionId: string,
  previous: string | undefined,
): TransactItem {
  return {
    Put: {
      TableName: tableName,
      Item: {
        ...keys.otelSessionClaim(orgId, customId),
        entity: 'OTELCLAIM',
        organizationId: orgId,
        customId,
        sessionId,
      },
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
        pending.map((Item) => ({
          Put: { TableName: tableName, Item, ConditionExpression: 'attribute_not_exists(pk)' },
        })),
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

/** How long spans of a trace that names no session are held for one of its spans that does. */
export const PARKED_SECONDS = 24 * 3600;

/**
 * Holds spans of a trace none of whose spans named its session yet (`span` is each one's encoded
 * form), with the trace's marker, until PARKED_SECONDS from now (the table's TTL removes them).
 */
export async function parkSpans(
  orgId: string,
  traceId: string,
  spans: { spanId: string; span: string }[],
  now: Date,
): Promise<void> {
  const ttl = Math.ceil(now.getTime() / 1000) + PARKED_SECONDS;
  const common = { entity: 'OTELPARKED', organizationId: orgId, traceId, ttl };
  await batchPut([
    ...spans.map((s) => ({
      ...keys.otelParkedSpan(orgId, traceId, s.spanId),
      ...common,
      spanId: s.spanId,
      span: s.span,
    })),
    { ...keys.otelParked(orgId, traceId), ...common },
  ]);
}

/** Which of these traces have held spans. */
export async function tracesWithParkedSpans(orgId: string, traceIds: string[]): Promise<Set<string>> {
  const items = await batchGet(
    traceIds.map((t) => keys.otelParked(orgId, t)),
    true,
  );
  return new Set(items.map((i) => String(i.traceId)));
}

/** The held spans of a trace (encoded), by span id. */
export async function parkedSpans(orgId: string, traceId: string): Promise<Map<string, string>> {
  const items = await queryPrefix(keys.otelParked(orgId, traceId).pk, 'SPAN#', { consistent: true });
  return new Map(items.map((i) => [String(i.spanId), String(i.span)]));
}

/** Removes a trace's held spans (they were placed). */
export async function unparkSpans(orgId: string, traceId: string, spanIds: string[]): Promise<void> {
  await batchDelete([...spanIds.map((id) => keys.otelParkedSpan(orgId, traceId, id)), keys.otelParked(orgId, traceId)]);
}
