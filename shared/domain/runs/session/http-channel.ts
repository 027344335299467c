import { countItems, runCancelled as runCancelledIn } from '../../../db/run-steps.js';
import type { RunSession } from '../../../db/runs.js';
import type { AuthContext } from '../../../auth/context.js';
import { ConflictError, ValidationError } from '../../../errors.js';
import { logger } from '../../../observability/logger.js';
import { MAX_TURN_TEXT, SPAN_TYPES, type SpanCreate } from '../../../schemas/sessions.js';
import { clock } from '../../common/clock.js';
import { newId } from '../../common/ids.js';
import { createTurnSpans } from '../../sessions/spans.js';
import {
  attemptTimeoutMs,
  callAgent,
  type AgentConnection,
  type CallOptions,
  type CallResult,
} from '../caller/index.js';
import { slotTaker } from '../rate-slot.js';
import type { Channel } from './channel.js';
import { isMultiTurn, turnsOf, type JobContext, type StepContext } from './context.js';
import type { AgentResult, Effect, SessionEvent } from './machine.js';
import type { Turn } from '../../../schemas/sessions.js';

/**
 * The HTTP channel: the service calls the agent's endpoint (INITIALIZATION, each CONVERSATION
 * turn, FINALIZATION), one call and its retries per effect, and records the turn's spans.
 */
export const httpChannel: Channel = {
  async perform(effect, ctx, state, jctx) {
    if (effect.type === 'callAgent') return call(effect, ctx, state.session, jctx);
    if (effect.type === 'recordSpans')
      await recordSpans(ctx, state.session, effect.turn, effect.spans, { counted: effect.counted });
    return undefined;
  },
  remember(ctx, turn) {
    ctx.turns = [...((isMultiTurn(ctx) ? ctx.turns : undefined) ?? []), turn];
  },
  async settle() {},
};

const resultOf = (result: CallResult): AgentResult =>
  result.kind === 'ok'
    ? {
        kind: 'ok',
        extracted: result.extracted,
        ...(result.sessionId !== undefined ? { sessionId: result.sessionId } : {}),
      }
    : result.kind === 'failed'
      ? { kind: 'failed', error: result.error }
      : { kind: 'requeue', delayMs: result.delayMs, attempts: result.attempts };

async function call(
  effect: Extract<Effect, { type: 'callAgent' }>,
  ctx: StepContext,
  s: RunSession,
  jctx: JobContext,
): Promise<SessionEvent> {
  if (effect.step === 'INITIALIZATION') {
    const conn = ctx.rec.initialization!;
    const result = await callAgent(
      conn,
      variablesOf(ctx, s, { input: {} }),
      callOptions(ctx, s, conn, jctx, effect.attempts),
    );
    if (
      result.kind === 'ok' &&
      'session_id' in conn.outputMapping &&
      (result.extracted.session_id === undefined || result.extracted.session_id === null)
    )
      return {
        type: 'agentAnswered',
        step: 'INITIALIZATION',
        result: { kind: 'failed', error: 'initialization returned no session_id' },
      };
    return { type: 'agentAnswered', step: 'INITIALIZATION', result: resultOf(result) };
  }
  if (effect.step === 'FINALIZATION') {
    const conn = ctx.rec.finalization!;
    const turns = await turnsOf(ctx, s);
    const result = await callAgent(
      conn,
      variablesOf(ctx, s, { input: {}, past_turns: turns.map((t) => ({ input: t.input, output: t.output })) }),
      callOptions(ctx, s, conn, jctx, effect.attempts),
    );
    return { type: 'agentAnswered', step: 'FINALIZATION', result: resultOf(result) };
  }
  const turns = isMultiTurn(ctx) ? await turnsOf(ctx, s) : [];
  const index = s.turnCount + 1;
  const conn = ctx.rec.conversation!;
  const turnId = newId('inferenceResult');
  const vars = variablesOf(ctx, s, {
    input: effect.user.input,
    inference_result_id: turnId,
    past_turns: turns.map((t) => ({ input: t.input, output: t.output })),
  });
  const result = await callAgent(conn, vars, callOptions(ctx, s, conn, jctx, effect.attempts));
  const answered = { type: 'agentAnswered' as const, step: 'CONVERSATION' as const, user: effect.user };
  if (result.kind !== 'ok') return { ...answered, result: resultOf(result) };
  const output = result.output.length > MAX_TURN_TEXT ? result.output.slice(0, MAX_TURN_TEXT) : result.output;
  const turn: Turn = {
    id: turnId,
    organizationId: s.organizationId,
    sessionId: s.id,
    index,
    input: effect.user.message.slice(0, MAX_TURN_TEXT),
    output,
    retrievalContext: (result.retrievalContext ?? []).map((r) => r.slice(0, MAX_TURN_TEXT)),
    latencyMs: result.latencyMs,
    usage: {
      inputTokens: result.usage?.inputTokens ?? 0,
      outputTokens: result.usage?.outputTokens ?? 0,
      cacheReadInputTokens: 0,
    },
    cost: null,
    metadata: {},
    createdAt: clock.now().toISOString(),
  };
  return { ...answered, result: resultOf(result), turn: { turn, spans: spansOf(turn, result) } };
}

/** Template variables of a call. */
function variablesOf(ctx: StepContext, s: RunSession, extra: Record<string, unknown>): Record<string, unknown> {
  const tc = ctx.rec.testCase;
  const { finalizationError: _f, ...extracted } = s.metadata;
  void _f;
  return {
    ...extracted,
    context: tc?.context ?? null,
    session_id: s.metadata.session_id ?? s.customId ?? undefined,
    platform_session_id: s.id,
    test_case_id: tc?.id,
    test_id: s.testId,
    run_id: ctx.runId,
    language_code: tc?.languageCode ?? ctx.rec.test?.languageCode,
    past_turns: [],
    ...extra,
  };
}

function callOptions(
  ctx: StepContext,
  s: RunSession,
  connection: AgentConnection,
  jctx: JobContext,
  attemptsSoFar: number | undefined,
): CallOptions {
  const takeSlot = connection.rateLimit
    ? slotTaker({
        connectionId: connection.id,
        rateLimit: connection.rateLimit,
        ...(jctx.remainingMs ? { remainingMs: jctx.remainingMs } : {}),
        attemptMs: attemptTimeoutMs(connection),
        stillWanted: async () => !(await runCancelled(ctx, s.id)),
      })
    : undefined;
  return {
    ...(jctx.remainingMs ? { remainingMs: jctx.remainingMs() - 5_000 } : {}),
    ...(takeSlot ? { takeSlot } : {}),
    ...(attemptsSoFar ? { attemptsSoFar } : {}),
  };
}

/** Whether the run was cancelled since the job read it (asked again after a long wait for a rate slot). */
async function runCancelled(ctx: StepContext, sessionId: string): Promise<boolean> {
  const cancelled = await runCancelledIn(ctx.run, sessionId);
  if (cancelled) ctx.cancelled = true;
  return cancelled;
}

const SPAN_TYPE_SET = new Set<string>(SPAN_TYPES);
const isDate = (v: unknown): v is string => typeof v === 'string' && !Number.isNaN(Date.parse(v));
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The turn's spans: a RETRIEVER span for `retrieval_context`, and one span per object of
 * `traces`. Ids derive from the turn, so a second attempt finds them (409) and adds nothing.
 */
function spansOf(turn: Turn, result: Extract<CallResult, { kind: 'ok' }>): SpanCreate[] {
  const spans: SpanCreate[] = [];
  if (result.retrievalContext?.length) {
    spans.push({
      id: `trace_${turn.id}_retrieval`,
      inferenceResultId: turn.id,
      name: 'retrieval_context',
      type: 'RETRIEVER',
      outputData: { documents: turn.retrievalContext },
    });
  }
  (result.traces ?? []).slice(0, 99).forEach((raw, i) => {
    if (!isObject(raw)) return;
    const type = typeof raw.type === 'string' ? raw.type.toUpperCase() : 'SPAN';
    spans.push({
      id: `trace_${turn.id}_${i}`,
      inferenceResultId: turn.id,
      name: typeof raw.name === 'string' && raw.name ? raw.name.slice(0, 500) : `span ${i + 1}`,
      type: (SPAN_TYPE_SET.has(type) ? type : 'SPAN') as SpanCreate['type'],
      ...(isObject(raw.inputData ?? raw.input)
        ? { inputData: (raw.inputData ?? raw.input) as Record<string, unknown> }
        : {}),
      ...(isObject(raw.outputData ?? raw.output) || typeof (raw.outputData ?? raw.output) === 'string'
        ? { outputData: (raw.outputData ?? raw.output) as Record<string, unknown> | string }
        : {}),
      ...(typeof raw.latencyMs === 'number' && raw.latencyMs >= 0 ? { latencyMs: raw.latencyMs } : {}),
      ...(isDate(raw.startTime) ? { startTime: new Date(raw.startTime).toISOString() } : {}),
      ...(isDate(raw.endTime) ? { endTime: new Date(raw.endTime).toISOString() } : {}),
    });
  });
  return spans;
}

/** Records the turn's spans; a trace the span schema refuses is left out and logged, it never fails the turn. */
async function recordSpans(
  ctx: StepContext,
  s: RunSession,
  turn: Turn,
  spans: SpanCreate[],
  options: { counted?: boolean } = {},
): Promise<void> {
  if (spans.length === 0) return;
  const auth: AuthContext = {
    organizationId: turn.organizationId,
    userId: s.userId,
    role: 'MEMBER',
    plan: 'FREE',
    keyId: `run:${ctx.runId}`,
  };
  try {
    const counted = options.counted
      ? []
      : countItems(ctx.run, s, { kind: 'spans', traces: { planIndex: ctx.rec.carry.planIndex, count: spans.length } });
    await createTurnSpans(auth, s, turn, spans, counted);
  } catch (error) {
    if (error instanceof ConflictError || error instanceof ValidationError) {
      logger.warn('run turn spans not recorded', { runId: ctx.runId, turnId: turn.id, error: error.message });
      return;
    }
    throw error;
  }
}
