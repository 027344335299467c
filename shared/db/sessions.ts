import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { doc, tableName } from './client.js';
import { keys } from './keys.js';
import { queryAll, queryIndex, queryPrefix } from './query.js';
import { toRecord } from './records.js';
import { isConditionalCheckFailed } from './errors.js';
import { newItemWrite, type TransactItem } from './catalog.js';
import { allOf, LIVE, updateOf } from './update.js';
import { OFFLOADED, restoreItem, restoreItems } from './offload.js';
import { ConflictError, ForbiddenError, NotFoundError } from '../errors.js';
import type { Evaluation } from '../schemas/sessions.js';
import type { Session, Span, Turn } from '../schemas/sessions.js';

// ---------- sessions ----------

export function sessionItem(s: Session): Record<string, unknown> {
  return {
    ...keys.session(s.id),
    ...keys.sessionByVersion(s.versionId, s.createdAt, s.id),
    ...(s.testId ? keys.sessionByTest(s.testId, s.createdAt, s.id) : {}),
    entity: 'SESSION',
    ...s,
  };
}

export function customIdItem(orgId: string, customId: string, sessionId: string): Record<string, unknown> {
  return { ...keys.sessionCustomId(orgId, customId, sessionId), entity: 'SESSIONCUSTOMID', sessionId };
}

/** The put of a new session, for a transaction: fails when the id is taken. */
export function newSessionWrite(s: Session): TransactItem {
  return { Put: { TableName: tableName, Item: sessionItem(s), ConditionExpression: 'attribute_not_exists(pk)' } };
}

/** The pointer from a custom id to a session, for a transaction. */
export function customIdWrite(orgId: string, customId: string, sessionId: string): TransactItem {
  return { Put: { TableName: tableName, Item: customIdItem(orgId, customId, sessionId) } };
}

/** The removal of a custom id's pointer to a session, for a transaction. */
export function customIdRelease(orgId: string, customId: string, sessionId: string): TransactItem {
  return { Delete: { TableName: tableName, Key: keys.sessionCustomId(orgId, customId, sessionId) } };
}

/** Marks a test as having spans or evaluations (for GET /tests filters), for a transaction. */
export function testActivityMark(orgId: string, testId: string, flag: '_hasTraces' | '_hasEvaluations'): TransactItem {
  return {
    Update: {
      TableName: tableName,
      Key: keys.catalog(orgId, 'TEST', testId),
      UpdateExpression: 'SET #f = :t',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#f': flag },
      ExpressionAttributeValues: { ':t': true },
    },
  };
}

/** A session item as its record: a session stored before voice figures existed reads as one without them. */
export function sessionRecord(item: Record<string, unknown>): Session {
  const session = toRecord<Session>(item);
  return { ...session, voice: session.voice ?? null, voiceError: session.voiceError ?? null };
}

/** A session of the caller: 403 another organization's, 404 none (deleted ones only with includeDeleted). */
export async function getSession(
  orgId: string,
  id: string,
  options: { includeDeleted?: boolean } = {},
): Promise<Session> {
  const out = await doc.send(new GetCommand({ TableName: tableName, Key: keys.session(id), ConsistentRead: true }));
  if (!out.Item) throw new NotFoundError(`session ${id} not found`);
  const session = sessionRecord(out.Item);
  if (session.organizationId !== orgId) throw new ForbiddenError(`session ${id} belongs to another organization`);
  if (session.deletedAt && !options.includeDeleted) throw new NotFoundError(`session ${id} not found`);
  return session;
}

/** A session item as stored, internal fields included (`_monitorIds`), or undefined when absent. */
export async function getSessionWithInternals<T extends Session = Session>(id: string): Promise<T | undefined> {
  const out = await doc.send(new GetCommand({ TableName: tableName, Key: keys.session(id), ConsistentRead: true }));
  return out.Item ? toRecord<T>(out.Item, { keepInternal: true }) : undefined;
}

export async function sessionsByVersion(versionId: string): Promise<Session[]> {
  return (await queryIndex('gsi1', keys.sessionByVersionPartition(versionId))).map(sessionRecord);
}

export async function sessionsByTest(testId: string): Promise<Session[]> {
  return (await queryIndex('gsi2', keys.sessionByTestPartition(testId))).map(sessionRecord);
}

export async function sessionIdsByCustomId(orgId: string, customId: string): Promise<string[]> {
  return (
    await queryAll({
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.sessionCustomIdPartition(orgId, customId) },
    })
  ).map((i) => String(i.sessionId));
}

export function sessionUpdate(
  id: string,
  set: Record<string, unknown>,
  condition?: string,
  values: Record<string, unknown> = {},
): TransactItem {
  return {
    Update: updateOf(keys.session(id), set, [], allOf(LIVE, condition ? { expression: condition, values } : undefined)),
  };
}

/** Closes a live session with `set` (its closedAt among them), only while it is not closed yet. */
export function closeSessionWrite(id: string, set: Record<string, unknown>): TransactItem {
  return sessionUpdate(id, set, 'attribute_not_exists(closedAt) OR attribute_type(closedAt, :nullType)', {
    ':nullType': 'NULL',
  });
}

/** Records the newest turn on the session (never moves backwards). */
export async function recordTurnCount(sessionId: string, count: number, at: string): Promise<void> {
  try {
    await doc.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.session(sessionId),
        UpdateExpression: 'SET turnCount = :n, lastTurnAt = :at',
        ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(turnCount) OR turnCount < :n)',
        ExpressionAttributeValues: { ':n': count, ':at': at },
      }),
    );
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
  }
}

// ---------- turns ----------

export function turnItem(t: Turn): Record<string, unknown> {
  return { ...keys.turn(t.sessionId, t.index), ...keys.byOwnId(t.id), entity: 'TURN', ...t };
}

/** Turn fields that may live in S3: the texts. */
export const TURN_OFFLOADABLE = ['input', 'output', 'retrievalContext'] as const;
/** The S3 path segment of turns: `orgs/<org>/inferenceResults/<id>/<field>.json`. */
export const TURN_KIND = 'inferenceResults';

/**
 * The put of a turn at its index (`item` as offload.ts left it, built for another index), for a
 * transaction: fails when the index is taken.
 */
export function turnAtIndexWrite(item: Record<string, unknown>, turn: Turn): TransactItem {
  return newItemWrite({
    ...item,
    ...keys.turn(turn.sessionId, turn.index),
    index: turn.index,
    createdAt: turn.createdAt,
  });
}

/** The stored item of a turn (offloaded fields still in S3), read consistently. */
export async function getTurnItem(sessionId: string, index: number): Promise<Record<string, unknown> | undefined> {
  const out = await doc.send(
    new GetCommand({ TableName: tableName, Key: keys.turn(sessionId, index), ConsistentRead: true }),
  );
  return out.Item;
}

/** The highest turn index of a session (0 when none), read consistently. */
export async function maxTurnIndex(sessionId: string): Promise<number> {
  const out = await doc.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
      ExpressionAttributeValues: { ':pk': `SESSION#${sessionId}`, ':sk': 'TURN#' },
      ScanIndexForward: false,
      Limit: 1,
      ConsistentRead: true,
    }),
  );
  const item = out.Items?.[0];
  return item ? Number(item.index) : 0;
}

/** Every turn of a session, texts whole (offloaded ones read back in parallel). */
export async function listTurns(sessionId: string): Promise<Turn[]> {
  return (await restoreItems(await listTurnItems(sessionId))).map((i) => toRecord<Turn>(i));
}

/** Every turn item of a session as stored: offloaded texts are null (restore the page you return). */
export function listTurnItems(sessionId: string): Promise<Record<string, unknown>[]> {
  return queryPrefix(`SESSION#${sessionId}`, 'TURN#', { consistent: true });
}

/** Sets fields of a stored turn and returns it; 404 when the turn is gone. */
export async function updateTurnFields(
  turn: Pick<Turn, 'id' | 'sessionId' | 'index'>,
  set: Record<string, unknown>,
): Promise<Turn> {
  try {
    const out = await doc.send(
      new UpdateCommand({
        ...updateOf(keys.turn(turn.sessionId, turn.index), set, [], { expression: 'attribute_exists(pk)' }),
        ReturnValues: 'ALL_NEW',
      }),
    );
    return toRecord<Turn>(out.Attributes ?? {});
  } catch (error) {
    if (isConditionalCheckFailed(error)) throw new NotFoundError(`inference result ${turn.id} not found`);
    throw error;
  }
}

/**
 * Sets and removes fields of a stored turn while its map of fields kept in S3 is still `before`
 * (none when empty): false when another writer changed it first.
 */
export async function updateTurnItemIf(
  turn: Pick<Turn, 'sessionId' | 'index'>,
  set: Record<string, unknown>,
  remove: string[],
  before: Record<string, unknown>,
): Promise<boolean> {
  const condition = Object.keys(before).length
    ? {
        expression: 'attribute_exists(pk) AND #prev = :prev',
        names: { '#prev': OFFLOADED },
        values: { ':prev': before },
      }
    : { expression: 'attribute_exists(pk) AND attribute_not_exists(#prev)', names: { '#prev': OFFLOADED } };
  try {
    await doc.send(new UpdateCommand(updateOf(keys.turn(turn.sessionId, turn.index), set, remove, condition)));
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw error;
  }
}

/**
 * A session-partitioned record by its own id (gsi2), or undefined. `whole` reads offloaded
 * fields back; without it they are null (enough for ownership checks).
 */
export async function findByOwnId<T>(id: string, options: { whole?: boolean } = {}): Promise<T | undefined> {
  const items = await queryIndex('gsi2', keys.byOwnIdPartition(id));
  if (!items[0]) return undefined;
  return toRecord<T>(options.whole ? await restoreItem(items[0]) : items[0]);
}

// ---------- spans ----------

export function spanItem(s: Span, startKey: string): Record<string, unknown> {
  return {
    ...keys.span(s.id),
    ...keys.spanBySession(s.sessionId, startKey, s.id),
    ...keys.spanByTurn(s.inferenceResultId, startKey, s.id),
    entity: 'SPAN',
    ...s,
  };
}

export async function getSpanItem(id: string): Promise<Record<string, unknown> | undefined> {
  const out = await doc.send(new GetCommand({ TableName: tableName, Key: keys.span(id), ConsistentRead: true }));
  return out.Item;
}

/** Soft-deletes a live span; false when it is absent or already deleted. */
export async function softDeleteSpan(id: string, deletedAt: string): Promise<boolean> {
  try {
    await doc.send(new UpdateCommand(updateOf(keys.span(id), { deletedAt }, [], LIVE)));
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw error;
  }
}

export async function spansOfSession(sessionId: string): Promise<Record<string, unknown>[]> {
  return queryIndex('gsi1', keys.spanBySessionPartition(sessionId));
}

export async function spansOfTurn(inferenceResultId: string): Promise<Record<string, unknown>[]> {
  return queryIndex('gsi2', keys.spanByTurnPartition(inferenceResultId));
}

// ---------- evaluations ----------

export function evaluationItem(e: Evaluation): Record<string, unknown> {
  return { ...keys.evaluation(e.sessionId, e.id), ...keys.byOwnId(e.id), entity: 'EVAL', ...e };
}

/** The put of a new evaluation, for a transaction: fails when the id is taken. */
export function newEvaluationWrite(e: Evaluation): TransactItem {
  return newItemWrite(evaluationItem(e));
}

/** The write of an evaluation over the stored one, only while that one's status is still `was`. */
export function evaluationWriteWhile(e: Evaluation, was: Evaluation['status']): TransactItem {
  return {
    Put: {
      TableName: tableName,
      Item: evaluationItem(e),
      ConditionExpression: '#s = :s',
      ExpressionAttributeNames: { '#s': 'status' },
      ExpressionAttributeValues: { ':s': was },
    },
  };
}

/**
 * The write that settles a PENDING evaluation with its result (its credit reservation mark
 * cleared), only while it is still PENDING: a redelivered job finds it handled.
 */
export function settleEvaluationWrite(done: Evaluation): TransactItem {
  const item = evaluationItem(done);
  delete item.reservedCredits;
  return {
    Put: {
      TableName: tableName,
      Item: item,
      ConditionExpression: '#s = :pending',
      ExpressionAttributeNames: { '#s': 'status' },
      ExpressionAttributeValues: { ':pending': 'PENDING' },
    },
  };
}

/**
 * Marks on a PENDING evaluation the credits reserved for it (and their cycle), once: fails when it
 * is no longer PENDING or already holds a reservation.
 */
export function reserveEvaluationCreditsWrite(
  sessionId: string,
  evaluationId: string,
  credits: number,
  cycle: string,
): TransactItem {
  return {
    Update: {
      TableName: tableName,
      Key: keys.evaluation(sessionId, evaluationId),
      UpdateExpression: 'SET reservedCredits = :c, reservedCycle = :cy',
      ConditionExpression: '#s = :pending AND attribute_not_exists(reservedCredits)',
      ExpressionAttributeNames: { '#s': 'status' },
      ExpressionAttributeValues: { ':c': credits, ':cy': cycle, ':pending': 'PENDING' },
    },
  };
}

export async function listEvaluations(sessionId: string): Promise<Evaluation[]> {
  return (await queryPrefix(`SESSION#${sessionId}`, 'EVAL#', { consistent: true })).map((i) => toRecord<Evaluation>(i));
}

export async function getEvaluationItem(sessionId: string, id: string): Promise<Evaluation | undefined> {
  const out = await doc.send(
    new GetCommand({ TableName: tableName, Key: keys.evaluation(sessionId, id), ConsistentRead: true }),
  );
  return out.Item ? toRecord<Evaluation>(out.Item) : undefined;
}

/**
 * Writes an evaluation back as PENDING (a retry), only while the stored one is FAILED; 409 when
 * a concurrent request changed it first.
 */
export async function requeueFailedEvaluation(reset: Evaluation): Promise<Evaluation> {
  try {
    await doc.send(
      new PutCommand({
        TableName: tableName,
        Item: evaluationItem(reset),
        ConditionExpression: '#s = :failed',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':failed': 'FAILED' },
      }),
    );
    return reset;
  } catch (error) {
    if (isConditionalCheckFailed(error))
      throw new ConflictError(`evaluation ${reset.id} is no longer FAILED; only FAILED evaluations can be retried`);
    throw error;
  }
}
