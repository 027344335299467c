import type { AuthContext } from '../../auth/context.js';
import { newItemWrite, transact, type TransactItem } from '../../db/catalog.js';
import { toRecord } from '../../db/records.js';
import {
  findByOwnId,
  getSession,
  getSpanItem,
  softDeleteSpan,
  spanItem,
  spansOfSession,
  spansOfTurn,
} from '../../db/sessions.js';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../errors.js';
import { MAX_DESCRIPTION_BYTES, type SpanBatch, type SpanCreate, type SpanListQuery } from '../../schemas/sessions.js';
import { discardObjects, offloadItems, restoreItem, restoreItems } from '../../db/offload.js';
import { transactionCancellationCodes } from '../../db/errors.js';
import { parseDateTime } from '../common/dates.js';
import { clock } from '../common/clock.js';
import { newId } from '../common/ids.js';
import type { Page } from '../common/list.js';
import { testActivityUpdate } from './sessions.js';
import type { Session, Span, Turn } from '../../schemas/sessions.js';

/** Spans keep small items (lists and evaluations read many): fields move to S3 past 64 KB. */
export const SPAN_BUDGET_BYTES = 64 * 1024;
export const SPAN_OFFLOADABLE = ['description', 'inputData', 'outputData', 'error', 'metadata'] as const;
export const SPAN_KIND = 'spans';

function buildSpan(session: Session, turn: Turn, input: SpanCreate, now: string): Span {
  if (input.description && Buffer.byteLength(input.description, 'utf8') > MAX_DESCRIPTION_BYTES) {
    throw new ValidationError(`description must be at most 1 MB (${MAX_DESCRIPTION_BYTES} bytes of UTF-8)`);
  }
  const start = input.startTime ? parseDateTime(input.startTime, 'startTime') : undefined;
  const end = input.endTime ? parseDateTime(input.endTime, 'endTime') : undefined;
  if (start !== undefined && end !== undefined && end < start)
    throw new ValidationError('endTime must not be before startTime');
  const derived = start !== undefined && end !== undefined ? end - start : null;
  return {
    id: input.id ?? newId('span'),
    organizationId: session.organizationId,
    sessionId: session.id,
    inferenceResultId: turn.id,
    name: input.name,
    type: input.type,
    description: input.description ?? null,
    inputData: input.inputData ?? null,
    outputData: input.outputData ?? null,
    error: input.error ?? null,
    latencyMs: input.latencyMs ?? derived,
    metadata: input.metadata ?? {},
    parentTraceId: input.parentTraceId ?? null,
    startTime: start !== undefined ? new Date(start).toISOString() : null,
    endTime: end !== undefined ? new Date(end).toISOString() : null,
    createdAt: now,
  };
}

async function turnOf(auth: AuthContext, id: string): Promise<Turn> {
  const turn = await findByOwnId<Turn>(id);
  if (!turn) throw new ValidationError(`inferenceResultId ${id} does not name an existing inference result`);
  if (turn.organizationId !== auth.organizationId)
    throw new ForbiddenError(`inference result ${id} belongs to another organization`);
  return turn;
}

/** Creates spans all or nothing: one transaction; large fields go to S3 first. */
async function createSpans(auth: AuthContext, inputs: SpanCreate[]): Promise<Span[]> {
  const ids = inputs.map((s) => s.id).filter((x): x is string => Boolean(x));
  if (new Set(ids).size !== ids.length) throw new ValidationError('span ids must be unique within a batch');
  const turns = new Map<string, Turn>();
  const sessions = new Map<string, Session>();
  const now = clock.now().toISOString();
  const spans: Span[] = [];
  for (const input of inputs) {
    let turn = turns.get(input.inferenceResultId);
    if (!turn) turns.set(input.inferenceResultId, (turn = await turnOf(auth, input.inferenceResultId)));
    let session = sessions.get(turn.sessionId);
    if (!session) sessions.set(turn.sessionId, (session = await getSession(auth.organizationId, turn.sessionId)));
    spans.push(buildSpan(session, turn, input, now));
  }
  await storeSpans(auth, spans, new Set(ids));
  for (const session of sessions.values()) {
    const flag = testActivityUpdate(session, '_hasTraces');
    if (flag.length) await transact(flag).catch(() => undefined);
  }
  return spans;
}

/**
 * The spans of a turn its writer holds (a run's step: it just recorded the turn, in its session),
 * written with `extra` in one transaction: no lookup of the turn or the session, and no write to
 * the test (the run marks it once).
 */
export async function createTurnSpans(
  auth: AuthContext,
  session: Session,
  turn: Turn,
  inputs: SpanCreate[],
  extra: TransactItem[] = [],
): Promise<Span[]> {
  const now = clock.now().toISOString();
  const spans = inputs.map((input) => buildSpan(session, turn, input, now));
  const ids = inputs.map((s) => s.id).filter((x): x is string => Boolean(x));
  await storeSpans(auth, spans, new Set(ids), extra);
  return spans;
}

/** Checks the spans' parents and writes them all or nothing (one transaction, with `extra`); large fields go to S3 first. */
async function storeSpans(
  auth: AuthContext,
  spans: Span[],
  clientIds: Set<string>,
  extra: TransactItem[] = [],
): Promise<void> {
  // parentTraceId: a span of the same inference result, stored or in this batch.
  const batch = new Map(spans.map((s) => [s.id, s]));
  for (const s of spans) {
    if (!s.parentTraceId) continue;
    if (s.parentTraceId === s.id) throw new ValidationError('parentTraceId must not be the span itself');
    const parent = batch.get(s.parentTraceId) ?? (await storedSpan(s.parentTraceId));
    if (!parent || parent.organizationId !== auth.organizationId || parent.deletedAt) {
      throw new ValidationError(`parentTraceId ${s.parentTraceId} does not name an existing span`);
    }
    if (parent.inferenceResultId !== s.inferenceResultId)
      throw new ValidationError(`parentTraceId ${s.parentTraceId} belongs to another inference result`);
  }
  // Large fields go to S3 first (fresh object names when the client chose the id, so a duplicate
  // never overwrites a stored span's objects), each item within its share of the transaction.
  const prepared = await offloadItems(
    spans.map((span) => ({
      item: spanItem(span, span.startTime ?? span.createdAt),
      target: {
        orgId: span.organizationId,
        kind: SPAN_KIND,
        id: span.id,
        fields: SPAN_OFFLOADABLE,
        fresh: clientIds.has(span.id),
      },
    })),
    { itemBudget: SPAN_BUDGET_BYTES },
  );
  const items: TransactItem[] = [...prepared.map((p) => newItemWrite(p.item)), ...extra];
  try {
    await transact(items, (codes) => {
      const i = codes.indexOf('ConditionalCheckFailed');
      return i >= 0 ? new ConflictError(`a span with id ${spans[i]!.id} already exists`) : undefined;
    });
  } catch (error) {
    // A cancelled transaction wrote nothing: no item points at these objects.
    if (error instanceof ConflictError || transactionCancellationCodes(error))
      await discardObjects(prepared.flatMap((p) => p.written));
    throw error;
  }
}

export async function createSpan(auth: AuthContext, input: SpanCreate): Promise<Span> {
  const [span] = await createSpans(auth, [input]);
  return span!;
}

export function createSpanBatch(auth: AuthContext, body: SpanBatch): Promise<Span[]> {
  return createSpans(auth, body.spans);
}

/** A stored span with its offloaded fields read back. */
export async function restore(item: Record<string, unknown>): Promise<Span> {
  return toRecord<Span>(await restoreItem(item));
}

async function storedSpan(id: string): Promise<Span | undefined> {
  const item = await getSpanItem(id);
  return item ? toRecord<Span>(item) : undefined;
}

/** An id that does not start with `trace_` is never a span: 404 without a read. */
export async function getSpan(auth: AuthContext, id: string): Promise<Span> {
  if (!id.startsWith('trace_')) throw new NotFoundError(`span ${id} not found`);
  const item = await getSpanItem(id);
  if (!item) throw new NotFoundError(`span ${id} not found`);
  if (item.organizationId !== auth.organizationId)
    throw new ForbiddenError(`span ${id} belongs to another organization`);
  return restore(item);
}

export async function listSpans(auth: AuthContext, query: SpanListQuery): Promise<Page<Span>> {
  if (!query.inferenceResultIds && !query.sessionIds)
    throw new ValidationError('one of inferenceResultIds or sessionIds is required');
  const items: Record<string, unknown>[] = [];
  for (const id of query.sessionIds ?? []) {
    await getSession(auth.organizationId, id, { includeDeleted: true });
    items.push(...(await spansOfSession(id)));
  }
  for (const id of query.inferenceResultIds ?? []) {
    await getTurnForRead(auth, id);
    items.push(...(await spansOfTurn(id)));
  }
  const seen = new Set<string>();
  const from = query.fromStartTime ? parseDateTime(query.fromStartTime, 'fromStartTime') : undefined;
  const to = query.toStartTime ? parseDateTime(query.toStartTime, 'toStartTime') : undefined;
  const types = query.types ? new Set<string>(query.types) : undefined;
  const names = query.names ? new Set(query.names) : undefined;
  const kept = items.filter((i) => {
    const id = String(i.id);
    if (seen.has(id)) return false;
    seen.add(id);
    if (i.deletedAt || i.organizationId !== auth.organizationId) return false;
    if (
      query.sessionIds &&
      query.inferenceResultIds &&
      !(
        query.sessionIds.includes(String(i.sessionId)) && query.inferenceResultIds.includes(String(i.inferenceResultId))
      )
    )
      return false;
    if (types && !types.has(String(i.type))) return false;
    if (names && !names.has(String(i.name))) return false;
    const start = Date.parse(String(i.startTime ?? i.createdAt));
    if (from !== undefined && start < from) return false;
    if (to !== undefined && start > to) return false;
    return true;
  });
  kept.sort((a, b) => String(a.gsi1sk).localeCompare(String(b.gsi1sk)));
  const offset = query.offset ?? 0;
  const pageItems = kept.slice(offset, offset + (query.limit ?? 100));
  return { items: (await restoreItems(pageItems)).map((i) => toRecord<Span>(i)), total: kept.length };
}

async function getTurnForRead(auth: AuthContext, id: string): Promise<void> {
  const turn = await findByOwnId<Turn>(id);
  if (!turn) throw new NotFoundError(`inference result ${id} not found`);
  if (turn.organizationId !== auth.organizationId)
    throw new ForbiddenError(`inference result ${id} belongs to another organization`);
}

export async function deleteSpan(auth: AuthContext, id: string): Promise<{ id: string; deletedAt: string }> {
  const span = await getSpan(auth, id);
  if (span.deletedAt) throw new NotFoundError(`span ${id} not found`);
  const deletedAt = clock.now().toISOString();
  if (!(await softDeleteSpan(id, deletedAt))) throw new NotFoundError(`span ${id} not found`);
  return { id, deletedAt };
}
