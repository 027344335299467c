import type { AuthContext } from '../../auth/context.js';
import { transact, type TransactItem } from '../../db/catalog.js';
import { tableName } from '../../db/client.js';
import { toRecord } from '../../db/records.js';
import { findByOwnId, getSession, getSpanItem, softDeleteSpan, spanItem, spansOfSession, spansOfTurn } from '../../db/sessions.js';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../http/errors.js';
import { MAX_DESCRIPTION_BYTES, type Session, type Span, type SpanBatch, type SpanCreate, type SpanListQuery, type Turn } from '../../schemas/sessions.js';
import { putObject, readObjectText } from '../../storage/s3.js';
import { orgPrefix } from '../../storage/uri.js';
import { clock } from '../common/clock.js';
import { newId } from '../common/ids.js';
import type { Page } from '../common/list.js';
import { testActivityUpdate } from './sessions.js';

/** Fields moved to S3 when the item would pass this size (DynamoDB items stop at 400 KB). */
export const ITEM_LIMIT_BYTES = 64 * 1024;
const OFFLOADABLE = ['description', 'inputData', 'outputData', 'error', 'metadata'] as const;
type Offloadable = (typeof OFFLOADABLE)[number];

const size = (v: unknown) => Buffer.byteLength(JSON.stringify(v ?? null), 'utf8');

/** Which fields to move to S3 so the rest stays under the limit: the largest first. */
export function fieldsToOffload(span: Span, limit = ITEM_LIMIT_BYTES): Offloadable[] {
  const out: Offloadable[] = [];
  let total = size(span);
  const bySize = [...OFFLOADABLE].sort((a, b) => size(span[b]) - size(span[a]));
  for (const field of bySize) {
    if (total <= limit - 2048) break;
    if (span[field] === null || span[field] === undefined) continue;
    out.push(field);
    total -= size(span[field]);
  }
  return out;
}

function spanKeyPrefix(orgId: string, id: string): string {
  return `${orgPrefix(orgId)}spans/${id}/`;
}

interface Prepared {
  span: Span;
  item: Record<string, unknown>;
}

async function prepare(span: Span): Promise<Prepared> {
  const offload = fieldsToOffload(span);
  const stored: Record<string, unknown> = { ...span };
  const offloaded: Record<string, string> = {};
  for (const field of offload) {
    const key = `${spanKeyPrefix(span.organizationId, span.id)}${field}.json`;
    await putObject(key, JSON.stringify(span[field]), 'application/json');
    offloaded[field] = key;
    stored[field] = null;
  }
  const item = spanItem(stored as unknown as Span, span.startTime ?? span.createdAt);
  if (offload.length) item._offloaded = offloaded;
  return { span, item };
}

function buildSpan(session: Session, turn: Turn, input: SpanCreate, now: string): Span {
  if (input.description && Buffer.byteLength(input.description, 'utf8') > MAX_DESCRIPTION_BYTES) {
    throw new ValidationError(`description must be at most 1 MB (${MAX_DESCRIPTION_BYTES} bytes of UTF-8)`);
  }
  const start = input.startTime ? Date.parse(input.startTime) : undefined;
  const end = input.endTime ? Date.parse(input.endTime) : undefined;
  if (start !== undefined && end !== undefined && end < start) throw new ValidationError('endTime must not be before startTime');
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
    startTime: input.startTime ? new Date(input.startTime).toISOString() : null,
    endTime: input.endTime ? new Date(input.endTime).toISOString() : null,
    createdAt: now,
  };
}

async function turnOf(auth: AuthContext, id: string): Promise<Turn> {
  const turn = await findByOwnId<Turn>(id);
  if (!turn) throw new ValidationError(`inferenceResultId ${id} does not name an existing inference result`);
  if (turn.organizationId !== auth.organizationId) throw new ForbiddenError(`inference result ${id} belongs to another organization`);
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
  // parentTraceId: a span of the same inference result, stored or in this batch.
  const batch = new Map(spans.map((s) => [s.id, s]));
  for (const s of spans) {
    if (!s.parentTraceId) continue;
    if (s.parentTraceId === s.id) throw new ValidationError('parentTraceId must not be the span itself');
    const parent = batch.get(s.parentTraceId) ?? (await storedSpan(s.parentTraceId));
    if (!parent || parent.organizationId !== auth.organizationId || parent.deletedAt) {
      throw new ValidationError(`parentTraceId ${s.parentTraceId} does not name an existing span`);
    }
    if (parent.inferenceResultId !== s.inferenceResultId) throw new ValidationError(`parentTraceId ${s.parentTraceId} belongs to another inference result`);
  }
  const prepared = await Promise.all(spans.map(prepare));
  const items: TransactItem[] = prepared.map((p) => ({ Put: { TableName: tableName, Item: p.item, ConditionExpression: 'attribute_not_exists(pk)' } }));
  await transact(items, (codes) => {
    const i = codes.indexOf('ConditionalCheckFailed');
    return i >= 0 ? new ConflictError(`a span with id ${spans[i]!.id} already exists`) : undefined;
  });
  for (const session of sessions.values()) {
    const flag = testActivityUpdate(session, '_hasTraces');
    if (flag.length) await transact(flag).catch(() => undefined);
  }
  return spans;
}

export async function createSpan(auth: AuthContext, input: SpanCreate): Promise<Span> {
  const [span] = await createSpans(auth, [input]);
  return span!;
}

export function createSpanBatch(auth: AuthContext, body: SpanBatch): Promise<Span[]> {
  return createSpans(auth, body.spans);
}

export async function restore(item: Record<string, unknown>): Promise<Span> {
  const span = toRecord<Span>(item);
  const offloaded = item._offloaded as Record<string, string> | undefined;
  if (offloaded) {
    const record = span as unknown as Record<string, unknown>;
    for (const [field, key] of Object.entries(offloaded)) {
      const text = await readObjectText(key);
      record[field] = text === undefined ? null : JSON.parse(text);
    }
  }
  return span;
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
  if (item.organizationId !== auth.organizationId) throw new ForbiddenError(`span ${id} belongs to another organization`);
  return restore(item);
}

export async function listSpans(auth: AuthContext, query: SpanListQuery): Promise<Page<Span>> {
  if (!query.inferenceResultIds && !query.sessionIds) throw new ValidationError('one of inferenceResultIds or sessionIds is required');
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
  const from = query.fromStartTime ? Date.parse(query.fromStartTime) : undefined;
  const to = query.toStartTime ? Date.parse(query.toStartTime) : undefined;
  const types = query.types ? new Set<string>(query.types) : undefined;
  const names = query.names ? new Set(query.names) : undefined;
  const kept = items.filter((i) => {
    const id = String(i.id);
    if (seen.has(id)) return false;
    seen.add(id);
    if (i.deletedAt || i.organizationId !== auth.organizationId) return false;
    if (query.sessionIds && query.inferenceResultIds && !(query.sessionIds.includes(String(i.sessionId)) && query.inferenceResultIds.includes(String(i.inferenceResultId)))) return false;
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
  return { items: await Promise.all(pageItems.map(restore)), total: kept.length };
}

async function getTurnForRead(auth: AuthContext, id: string): Promise<void> {
  const turn = await findByOwnId<Turn>(id);
  if (!turn) throw new NotFoundError(`inference result ${id} not found`);
  if (turn.organizationId !== auth.organizationId) throw new ForbiddenError(`inference result ${id} belongs to another organization`);
}

export async function deleteSpan(auth: AuthContext, id: string): Promise<{ id: string; deletedAt: string }> {
  const span = await getSpan(auth, id);
  if (span.deletedAt) throw new NotFoundError(`span ${id} not found`);
  const deletedAt = clock.now().toISOString();
  if (!(await softDeleteSpan(id, deletedAt))) throw new NotFoundError(`span ${id} not found`);
  return { id, deletedAt };
}

