import type { AuthContext } from '../../auth/context.js';
import { transact, type TransactItem } from '../../db/catalog.js';
import { toRecord } from '../../db/records.js';
import {
  findByOwnId,
  getSession,
  getTurnItem,
  listTurnItems,
  maxTurnIndex,
  recordTurnCount,
  TURN_KIND,
  TURN_OFFLOADABLE,
  turnAtIndexWrite,
  turnItem,
  updateTurnItemIf,
} from '../../db/sessions.js';
import { GuardTakenError } from '../../db/errors.js';
import {
  discardObjects,
  OFFLOADED,
  offloadedOf,
  offloadItem,
  offloadItems,
  restoreItems,
  supersededObjects,
} from '../../db/offload.js';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../errors.js';
import type { TurnBatch, TurnCreate, TurnListQuery, TurnUpdate } from '../../schemas/sessions.js';
import { clock } from '../common/clock.js';
import { newId } from '../common/ids.js';
import type { Page } from '../common/list.js';
import { sessionLifecycle } from './session-lifecycle.js';
import { bodyReference } from '../common/references.js';
import type { Session, Turn } from '../../schemas/sessions.js';

export type TurnDraft = Omit<Turn, 'id' | 'index' | 'organizationId' | 'sessionId' | 'createdAt'>;

export function draftOf(input: Partial<TurnCreate> & { input: string }): TurnDraft {
  return {
    input: input.input,
    output: input.output ?? null,
    retrievalContext: input.retrievalContext ?? [],
    latencyMs: input.latencyMs ?? null,
    usage: {
      inputTokens: input.usage?.inputTokens ?? 0,
      outputTokens: input.usage?.outputTokens ?? 0,
      cacheReadInputTokens: input.usage?.cacheReadInputTokens ?? 0,
    },
    cost: input.cost ?? null,
    metadata: {},
  };
}

/**
 * Folds `{role, content}` messages into turns: a user message opens a turn, the assistant
 * messages that follow are its output (joined); an assistant message with no user message
 * before it opens a turn with empty input. retrievalContext of assistant messages is kept.
 */
export function foldMessages(messages: TurnBatch['messages']): TurnDraft[] {
  const turns: TurnDraft[] = [];
  let current: TurnDraft | undefined;
  for (const m of messages) {
    if (m.role === 'user') {
      current = draftOf({ input: m.content, retrievalContext: m.retrievalContext });
      turns.push(current);
    } else {
      if (!current) {
        current = draftOf({ input: '' });
        turns.push(current);
      }
      current.output = current.output === null ? m.content : `${current.output}\n${m.content}`;
      if (m.retrievalContext) current.retrievalContext = [...current.retrievalContext, ...m.retrievalContext];
    }
  }
  return turns;
}

const MAX_ATTEMPTS = 60;

/**
 * Appends turns to a session with indexes in arrival order, without gaps or duplicates under
 * concurrent writers: indexes follow the highest stored one, and each put is conditional on its
 * index being free; a writer that loses the race re-reads and tries again. All or nothing.
 * `guard` (conditional writes, e.g. the OTel trace → turn items) commits with the turns; when a
 * guard's condition fails nothing is written and GuardTakenError is thrown.
 */
export async function appendTurns(
  session: Session,
  drafts: TurnDraft[],
  options: { guard?: (turns: Turn[]) => TransactItem[] } = {},
): Promise<Turn[]> {
  if (drafts.length > 100) throw new ValidationError('a batch may add at most 100 turns');
  // Ids are fixed before the first attempt, so texts go to S3 once (keys name the id, not the
  // index), each item within its share of the transaction's 4 MB.
  const ids = drafts.map(() => newId('inferenceResult'));
  const shaped = (now: string, base: number): Turn[] =>
    drafts.map((d, i) => ({
      id: ids[i]!,
      organizationId: session.organizationId,
      sessionId: session.id,
      index: base + i + 1,
      ...d,
      createdAt: now,
    }));
  const offloaded = await offloadItems(
    shaped(clock.now().toISOString(), 999_999).map((t) => ({
      item: turnItem(t),
      target: { orgId: t.organizationId, kind: TURN_KIND, id: t.id, fields: TURN_OFFLOADABLE },
    })),
  );
  const written = offloaded.flatMap((o) => o.written);
  let committed = false;
  let firstIndex = 0;
  try {
    for (let attempt = 1; ; attempt++) {
      const base = await maxTurnIndex(session.id);
      const now = clock.now().toISOString();
      const turns = shaped(now, base);
      firstIndex = base + 1;
      const items: TransactItem[] = turns.map((t, i) => turnAtIndexWrite(offloaded[i]!.item, t));
      if (options.guard) items.push(...options.guard(turns));
      try {
        await transact(items, (codes) => {
          if (codes.slice(turns.length).includes('ConditionalCheckFailed'))
            return new GuardTakenError('a guarded item exists');
          return codes.includes('ConditionalCheckFailed') || codes.includes('TransactionConflict')
            ? new ConflictError('turn index taken')
            : undefined;
        });
      } catch (error) {
        if (error instanceof ConflictError && attempt < MAX_ATTEMPTS) {
          await new Promise((r) => setTimeout(r, Math.random() * Math.min(200, 5 * attempt)));
          continue;
        }
        if (error instanceof ConflictError)
          throw new ConflictError('too many concurrent writers on this session; retry');
        throw error;
      }
      committed = true;
      await recordTurnCount(session.id, turns[turns.length - 1]!.index, now);
      await sessionLifecycle.turnsAdded(
        { ...session, turnCount: turns[turns.length - 1]!.index, lastTurnAt: now },
        turns,
      );
      return turns;
    }
  } catch (error) {
    // No item points at these objects unless the transaction committed.
    if (!committed && written.length && !(await turnStored(session.id, firstIndex, ids[0]!)))
      await discardObjects(written);
    throw error;
  }
}

/** Whether the first turn of this write was stored after all (a failure that hides a commit). */
async function turnStored(sessionId: string, index: number, id: string): Promise<boolean> {
  if (index < 1) return false;
  try {
    return (await getTurnItem(sessionId, index))?.id === id;
  } catch {
    return true; // unknown: keep the objects (garbage at worst, never a dangling pointer)
  }
}

function liveSession(auth: AuthContext, id: string): Promise<Session> {
  return bodyReference(() => getSession(auth.organizationId, id), 'sessionId', id, 'session');
}

export async function createTurn(auth: AuthContext, input: TurnCreate): Promise<Turn> {
  const session = await liveSession(auth, input.sessionId);
  const [turn] = await appendTurns(session, [draftOf(input)]);
  return turn!;
}

export async function createTurns(auth: AuthContext, input: TurnBatch): Promise<Turn[]> {
  const session = await liveSession(auth, input.sessionId);
  return appendTurns(session, foldMessages(input.messages));
}

export async function getTurn(auth: AuthContext, id: string): Promise<Turn> {
  const turn = await findByOwnId<Turn>(id, { whole: true });
  if (!turn || !id.startsWith('inf_')) throw new NotFoundError(`inference result ${id} not found`);
  if (turn.organizationId !== auth.organizationId)
    throw new ForbiddenError(`inference result ${id} belongs to another organization`);
  return turnView(turn);
}

/** A turn as clients see it: turns stored before turns had metadata read `metadata: {}`. */
export function turnView(turn: Turn): Turn {
  return turn.metadata ? turn : { ...turn, metadata: {} };
}

export async function listTurnsOf(auth: AuthContext, query: TurnListQuery): Promise<Page<Turn>> {
  const all: Record<string, unknown>[] = [];
  for (const id of query.sessionIds) {
    await getSession(auth.organizationId, id, { includeDeleted: true });
    all.push(...(await listTurnItems(id)));
  }
  const offset = query.offset ?? 0;
  // Only the page returned reads its texts back from S3.
  const page = await restoreItems(all.slice(offset, offset + (query.limit ?? 100)));
  return { items: page.map((i) => turnView(toRecord<Turn>(i))), total: all.length };
}

/**
 * Changes a turn. The merged turn is offloaded again as a whole: changed texts that do not fit go
 * to fresh objects (never over what the stored item points at), unchanged ones keep theirs. The
 * update holds only if nobody changed the offloaded map meanwhile; superseded objects go after.
 */
export async function updateTurn(auth: AuthContext, id: string, body: TurnUpdate): Promise<Turn> {
  return changeTurn(await getTurn(auth, id), body);
}

/**
 * Changes a stored turn's fields (the texts included, as an OTel root span arriving after its
 * children sets them). Same rules as updateTurn.
 */
export async function changeTurn(turn: Turn, body: TurnUpdate & { input?: string }): Promise<Turn> {
  const id = turn.id;
  const stored = await getTurnItem(turn.sessionId, turn.index);
  if (!stored) throw new NotFoundError(`inference result ${id} not found`);
  const merged: Turn = { ...turn };
  const record = merged as unknown as Record<string, unknown>;
  for (const [k, v] of Object.entries(body))
    if (v !== undefined) record[k] = k === 'usage' ? { ...turn.usage, ...(v as object) } : v;
  const before = offloadedOf(stored);
  const unchanged = Object.fromEntries(Object.entries(before).filter(([field]) => !(field in body)));
  const { item, written } = await offloadItem(turnItem(merged), {
    orgId: turn.organizationId,
    kind: TURN_KIND,
    id,
    fields: TURN_OFFLOADABLE,
    fresh: true,
    stored: unchanged,
  });
  const set: Record<string, unknown> = {};
  for (const k of new Set([...Object.keys(body), ...TURN_OFFLOADABLE])) set[k] = item[k] ?? null;
  const remove: string[] = [];
  if (item[OFFLOADED]) set[OFFLOADED] = item[OFFLOADED];
  else remove.push(OFFLOADED);
  let updated: boolean;
  try {
    // Only while the S3 map is still the one read: a concurrent update's objects are not lost.
    updated = await updateTurnItemIf(turn, set, remove, before);
  } catch (error) {
    await discardObjects(written);
    throw error;
  }
  if (!updated) {
    await discardObjects(written);
    throw new ConflictError(`inference result ${id} changed while this request ran; retry`);
  }
  await discardObjects(supersededObjects(stored, item));
  return merged;
}
