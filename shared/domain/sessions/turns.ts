import type { AuthContext } from '../../auth/context.js';
import { transact, type TransactItem } from '../../db/catalog.js';
import { tableName } from '../../db/client.js';
import { findByOwnId, getSession, listTurns, maxTurnIndex, recordTurnCount, turnItem, updateTurnFields } from '../../db/sessions.js';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../http/errors.js';
import type { Session, Turn, TurnBatch, TurnCreate, TurnListQuery, TurnUpdate } from '../../schemas/sessions.js';
import { clock } from '../common/clock.js';
import { newId } from '../common/ids.js';
import type { Page } from '../common/list.js';
import { sessionLifecycle } from './session-lifecycle.js';
import { bodyReference } from '../common/references.js';

type TurnDraft = Omit<Turn, 'id' | 'index' | 'organizationId' | 'sessionId' | 'createdAt'>;

function draftOf(input: Partial<TurnCreate> & { input: string }): TurnDraft {
  return {
    input: input.input,
    output: input.output ?? null,
    retrievalContext: input.retrievalContext ?? [],
    latencyMs: input.latencyMs ?? null,
    usage: { inputTokens: input.usage?.inputTokens ?? 0, outputTokens: input.usage?.outputTokens ?? 0, cacheReadInputTokens: input.usage?.cacheReadInputTokens ?? 0 },
    cost: input.cost ?? null,
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
 */
async function appendTurns(session: Session, drafts: TurnDraft[]): Promise<Turn[]> {
  if (drafts.length > 100) throw new ValidationError('a batch may add at most 100 turns');
  for (let attempt = 1; ; attempt++) {
    const base = await maxTurnIndex(session.id);
    const now = clock.now().toISOString();
    const turns: Turn[] = drafts.map((d, i) => ({ id: newId('inferenceResult'), organizationId: session.organizationId, sessionId: session.id, index: base + i + 1, ...d, createdAt: now }));
    const items: TransactItem[] = turns.map((t) => ({ Put: { TableName: tableName, Item: turnItem(t), ConditionExpression: 'attribute_not_exists(pk)' } }));
    try {
      await transact(items, (codes) => (codes.includes('ConditionalCheckFailed') || codes.includes('TransactionConflict') ? new ConflictError('turn index taken') : undefined));
    } catch (error) {
      if (error instanceof ConflictError && attempt < MAX_ATTEMPTS) {
        await new Promise((r) => setTimeout(r, Math.random() * Math.min(200, 5 * attempt)));
        continue;
      }
      if (error instanceof ConflictError) throw new ConflictError('too many concurrent writers on this session; retry');
      throw error;
    }
    await recordTurnCount(session.id, turns[turns.length - 1]!.index, now);
    await sessionLifecycle.turnsAdded({ ...session, turnCount: turns[turns.length - 1]!.index, lastTurnAt: now }, turns);
    return turns;
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
  const turn = await findByOwnId<Turn>(id);
  if (!turn || !id.startsWith('inf_')) throw new NotFoundError(`inference result ${id} not found`);
  if (turn.organizationId !== auth.organizationId) throw new ForbiddenError(`inference result ${id} belongs to another organization`);
  return turn;
}

export async function listTurnsOf(auth: AuthContext, query: TurnListQuery): Promise<Page<Turn>> {
  const all: Turn[] = [];
  for (const id of query.sessionIds) {
    await getSession(auth.organizationId, id, { includeDeleted: true });
    all.push(...(await listTurns(id)));
  }
  const offset = query.offset ?? 0;
  return { items: all.slice(offset, offset + (query.limit ?? 100)), total: all.length };
}

export async function updateTurn(auth: AuthContext, id: string, body: TurnUpdate): Promise<Turn> {
  const turn = await getTurn(auth, id);
  const set: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) if (v !== undefined) set[k] = k === 'usage' ? { ...turn.usage, ...(v as object) } : v;
  return updateTurnFields(turn, set);
}
