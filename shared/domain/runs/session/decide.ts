import type { RunSession } from '../../../db/runs.js';
import type { StepChange } from '../../../db/run-steps.js';
import { CALL_NEWS_WINDOW_MS, MAX_ANSWER_SECONDS } from '../../../voice/line.js';
import type { Evaluation } from '../../../schemas/sessions.js';
import { closeOf, runMayBeDone } from './close.js';
import {
  CANCELLED_REASON,
  type ClosingTurn,
  type DecideTools,
  type Decision,
  type Effect,
  type SessionEnd,
  type SessionEvent,
  type SessionState,
  type UserMessage,
  type WriteOptions,
} from './machine.js';
import { phoneEnded } from './decide-barge-in.js';
import { phoneDecisions } from './decide-phone.js';

/**
 * The session's state machine: what a session does next, given its state and what happened.
 * Pure: no I/O, no clock (the facts carry `now`), no ids; the runner performs the effects.
 *
 * A session is QUEUED (no step started), RUNNING (initialization, turns, finalization; each step
 * one write conditional on the step), EVALUATING (ended, scoring) and DONE (counted). Its
 * conversation ends (`_end`) before it is closed: the close writes its final status and its
 * evaluations.
 */
export function decide(state: SessionState, event: SessionEvent): Decision {
  switch (event.type) {
    case 'stepDelivered':
    case 'cancel':
    case 'callAnswered':
    case 'hangUp':
    case 'callFailed':
    case 'deadline':
      return delivered(state, event);
    case 'written':
      return written(state, event.called);
    case 'planned':
      return closeWith(state, event.evaluations, event.withTurn);
    case 'closed':
      return stop(state, [{ type: 'count' }]);
    case 'counted':
      return runMayBeDone(state.facts.run, event.last ? 'last' : 'counted')
        ? stop(state, [{ type: 'finishRun', counted: true }])
        : stop(state);
    case 'agentAnswered':
      return answered(state, event);
    case 'userSimulated':
      return simulated(state, event);
    default:
      return phoneDecisions(state, event, tools);
  }
}

const stop = (state: SessionState, effects: Effect[] = []): Decision => ({ next: state, effects });

/** The session as a step's write leaves it (a first write also moves it from QUEUED to RUNNING). */
function afterWrite(s: RunSession, set: Record<string, unknown>, remove: string[] = []): RunSession {
  const session = { ...s, ...(s._phase === 'QUEUED' ? { _phase: 'RUNNING' } : {}), ...set } as RunSession;
  for (const k of remove) delete (session as unknown as Record<string, unknown>)[k];
  return session;
}

/**
 * The write of a step: conditional on the session's step. A session's first write (it is still
 * QUEUED: nothing is written before its first call, so a single-turn case costs one write after
 * it) also moves it from pending to running.
 */
function change(state: SessionState, set: Record<string, unknown>, options: WriteOptions = {}): StepChange {
  const { onMoved: _, ...written } = options;
  const s = state.session;
  const base: StepChange = { run: state.facts.run, session: s, seq: s._seq, set, ...written };
  if (s._phase !== 'QUEUED') return base;
  return { ...base, set: { _phase: 'RUNNING', ...set }, phase: 'QUEUED', counts: [{ kind: 'start' }] };
}

/** The session moves one step on: `set` written while it is still at its step. */
function write(
  state: SessionState,
  set: Record<string, unknown>,
  then: 'continue' | 'called' | 'stop',
  options: WriteOptions = {},
): Decision {
  const effect: Effect = {
    type: 'write',
    change: change(state, set, options),
    after: then,
    ...(options.onMoved ? { onMoved: options.onMoved } : {}),
  };
  return { next: { ...state, session: afterWrite(state.session, set, options.remove) }, effects: [effect] };
}

const end = (state: SessionState, how: SessionEnd): Decision =>
  write(state, { _seq: state.session._seq + 1, _end: how }, 'continue');

const failed = (error: string): SessionEnd => ({ status: 'FAILED', stoppingReason: null, error });

/** A step job, a cancel, or a call's news came: the session is where the job expects it, or nothing happens. */
function delivered(state: SessionState, event: Extract<SessionEvent, { seq: number }>): Decision {
  const s = state.session;
  if (s._phase === 'DONE') {
    // A call that ended after its session was counted: its recording is still the session's.
    const recording: Effect[] =
      event.type === 'hangUp' && event.recordingKey && !otherCall(s, event.transactionId)
        ? [{ type: 'setRecording', recordingKey: event.recordingKey }]
        : [];
    // Counted by an earlier delivery that may have stopped before closing the run.
    return stop(state, [...recording, { type: 'finishRun' }]);
  }
  if (s._seq !== event.seq) {
    // Done by an earlier delivery; make sure the step after it was put on the queue.
    if (s._seq === event.seq + 1 && s._queued < s._seq)
      return stop(state, [{ type: 'enqueueStep', seq: s._seq, mark: true }]);
    return stop(state);
  }
  return step(state, event);
}

/** Whether a delivered event makes the session take a step (not a counted session's late news, not a stale job). */
export function steps(state: SessionState, event: SessionEvent): boolean {
  return 'seq' in event && state.session._phase !== 'DONE' && state.session._seq === event.seq;
}

const otherCall = (s: RunSession, transactionId: string | undefined) =>
  Boolean(transactionId && s._call && transactionId !== s._call.transactionId);

/** What the session's step does: score, stop, end, or call (the agent, or the simulated user first). */
function step(state: SessionState, event: Extract<SessionEvent, { seq: number }>): Decision {
  const s = state.session;
  const { facts } = state;
  if (s._phase === 'EVALUATING') return stop(state, [{ type: 'count' }]);
  if (s.status !== 'PENDING') return stop(state);
  const cancelled = facts.cancelled || event.type === 'cancel';
  // A session that has not started (QUEUED) starts with its first write: no write before its call.
  if (s._phase === 'QUEUED' && cancelled) {
    const closed = {
      status: 'FAILED',
      stoppingReason: CANCELLED_REASON,
      error: 'the run was cancelled before this session started',
      closedAt: facts.now,
      _phase: 'DONE',
    };
    const effect: Effect = {
      type: 'write',
      change: {
        run: facts.run,
        session: s,
        seq: s._seq,
        set: closed,
        phase: 'QUEUED',
        counts: [{ kind: 'done', status: 'FAILED', from: 'pending' }],
      },
      after: 'stop',
    };
    return { next: { ...state, session: { ...s, ...closed } as RunSession }, effects: [effect, { type: 'finishRun' }] };
  }
  if (cancelled && !s._end)
    return end(state, {
      status: 'FAILED',
      stoppingReason: CANCELLED_REASON,
      error: 'the run was cancelled while this session ran',
    });
  if (facts.channel === 'PHONE') return s._end ? phoneEnded(state, event, tools) : phoneDecisions(state, event, tools);
  const attempts = event.type === 'stepDelivered' && event.attempts ? { attempts: event.attempts } : {};
  if (s._end) {
    if (finalizationDue(state)) return stop(state, [{ type: 'callAgent', step: 'FINALIZATION', ...attempts }]);
    return close(state);
  }
  if (!facts.conversation)
    return end(state, failed('CONVERSATION: the version has no live CONVERSATION endpoint connection'));
  if (facts.initialization && !s._initDone)
    return stop(state, [{ type: 'callAgent', step: 'INITIALIZATION', ...attempts }]);
  return userMessage(state, (at, user) => stop(at, [{ type: 'callAgent', step: 'CONVERSATION', user, ...attempts }]));
}

/** An ended session is closed: its evaluations planned first, unless its run was cancelled (then it gets none). */
const close = (state: SessionState): Decision =>
  state.session._end?.stoppingReason === CANCELLED_REASON ? closeWith(state, []) : stop(state, [{ type: 'plan' }]);

/** The close with its evaluations (and the last turn, whose spans are recorded once it is written). */
function closeWith(state: SessionState, evaluations: Evaluation[], withTurn?: ClosingTurn): Decision {
  const s = state.session;
  const { facts } = state;
  const how = s._end ?? { status: 'COMPLETED' as const, stoppingReason: 'completed', error: null };
  const closing = closeOf(s, how, evaluations, {
    run: facts.run,
    planIndex: facts.planIndex,
    now: facts.now,
    withTurn,
  });
  const spans: Effect[] = withTurn
    ? [{ type: 'recordSpans', turn: withTurn.turn, spans: withTurn.spans, counted: true }]
    : [];
  return { next: { ...state, session: closing.closed }, effects: [{ type: 'close', close: closing }, ...spans] };
}

/** Whether the session's FINALIZATION is still to call. */
function finalizationDue(state: SessionState, s: RunSession = state.session): boolean {
  const { facts } = state;
  return (
    facts.finalization &&
    !s._finalDone &&
    (s._initDone || !facts.initialization) &&
    s._end?.stoppingReason !== CANCELLED_REASON &&
    !facts.cancelled
  );
}

/** Whether the session still has an agent to call (another turn, or its FINALIZATION). */
function callsLeft(state: SessionState): boolean {
  const s = state.session;
  if (s.status !== 'PENDING') return false;
  if (!s._end) return true;
  return finalizationDue(state);
}

/**
 * A write went through. One agent call per job: after a call, the next call, or a close there is
 * no time for, is the next job's; otherwise the session's next step runs on in this job.
 */
function written(state: SessionState, called: boolean): Decision {
  const s = state.session;
  if (s._phase === 'DONE') return stop(state);
  if (called && (callsLeft(state) || !state.facts.closeNow))
    return stop(state, [{ type: 'enqueueStep', seq: s._seq, withTurns: true, mark: true }]);
  return step(state, { type: 'stepDelivered', seq: s._seq });
}

/**
 * The message of turn `turnCount + 1`: the case's input for the first turn, then the simulated
 * user's (asked once: its answer is written with its credit settlement, so a redelivery reads it).
 * Past the last turn, or when the simulated user stops, the session ends.
 */
function userMessage(state: SessionState, then: (state: SessionState, user: UserMessage) => Decision): Decision {
  const s = state.session;
  const { facts } = state;
  const index = s.turnCount + 1;
  if (index > facts.maxTurns)
    return end(state, {
      status: 'COMPLETED',
      stoppingReason: facts.multi ? 'max_iterations' : 'completed',
      error: null,
    });
  if (index === 1 && facts.caseInput) return then(state, facts.caseInput);
  if (!facts.multi)
    return end(state, failed(`CONVERSATION failed: test case ${facts.testCaseId ?? '(deleted)'} has no input`));
  if (s._userMessage && s._userMessage.seq === s._seq)
    return then(state, { message: s._userMessage.message, input: { user_message: s._userMessage.message } });
  const stopped = {
    _seq: s._seq + 1,
    _end: { status: 'COMPLETED', stoppingReason: 'simulator_stopped', error: null },
  };
  return stop(state, [
    {
      type: 'simulateUser',
      index,
      onStop: change(state, stopped),
      onMessage: change(state, { _userMessage: { seq: s._seq, message: '' } }),
    },
  ]);
}

/** The simulated user answered: its message (or its stop) was written with its credits. */
function simulated(state: SessionState, event: Extract<SessionEvent, { type: 'userSimulated' }>): Decision {
  const { result, index } = event;
  const s = state.session;
  if (!result.ok) return end(state, failed(`SIMULATED_USER failed before turn ${index}: ${result.error}`));
  if (result.recorded === false) return stop(state); // another delivery moved the session on
  if (result.stop && index > 1) {
    const how: SessionEnd = { status: 'COMPLETED', stoppingReason: result.reason || 'simulator_stopped', error: null };
    return written({ ...state, session: afterWrite(s, { _seq: s._seq + 1, _end: how }) }, false);
  }
  const at = { ...state, session: afterWrite(s, { _userMessage: { seq: s._seq, message: result.message } }) };
  const user = { message: result.message, input: { user_message: result.message } };
  return state.facts.channel === 'PHONE'
    ? phoneDecisions(at, { type: 'stepDelivered', seq: s._seq }, tools, user)
    : stop(at, [{ type: 'callAgent', step: 'CONVERSATION', user }]);
}

const RESERVED_KEYS = new Set(['output', 'retrieval_context', 'traces', 'usage', 'session_id']);

/** What an answer adds to the session: every other mapped key into metadata, session_id into customId when empty. */
function additions(
  s: RunSession,
  result: Extract<SessionEvent, { type: 'agentAnswered' }>['result'] & { kind: 'ok' },
  all: boolean,
): { set: Record<string, unknown>; customId?: string } {
  const metadata = { ...s.metadata };
  for (const [k, v] of Object.entries(result.extracted))
    if (v !== undefined && (all || !RESERVED_KEYS.has(k))) metadata[k] = v;
  const sessionId =
    result.sessionId ?? (typeof result.extracted.session_id === 'string' ? result.extracted.session_id : undefined);
  if (sessionId !== undefined) metadata.session_id = sessionId;
  if (!s.customId && sessionId) return { set: { metadata, customId: sessionId }, customId: sessionId };
  return { set: { metadata } };
}

/** The agent answered a call (or failed, or its wait goes back on the queue). */
function answered(state: SessionState, event: Extract<SessionEvent, { type: 'agentAnswered' }>): Decision {
  const s = state.session;
  const { result } = event;
  if (result.kind === 'requeue')
    return stop(state, [{ type: 'enqueueStep', seq: s._seq, delayMs: result.delayMs, attempts: result.attempts }]);
  if (event.step === 'INITIALIZATION') {
    if (result.kind === 'failed') return end(state, failed(`INITIALIZATION failed: ${result.error}`));
    const { set, customId } = additions(s, result, true);
    return write(state, { ...set, _seq: s._seq + 1, _initDone: true }, 'called', customId ? { customId } : {});
  }
  if (event.step === 'FINALIZATION') {
    const metadata = { ...s.metadata };
    if (result.kind === 'failed') metadata.finalizationError = `FINALIZATION failed: ${result.error}`;
    else
      for (const [k, v] of Object.entries(result.extracted))
        if (v !== undefined && !RESERVED_KEYS.has(k)) metadata[k] = v;
    return write(state, { metadata, _seq: s._seq + 1, _finalDone: true }, 'called');
  }
  const index = s.turnCount + 1;
  if (result.kind === 'failed' || !event.turn)
    return end(state, failed(`CONVERSATION turn ${index} failed: ${result.kind === 'failed' ? result.error : ''}`));
  const { turn, spans } = event.turn;
  const { set, customId } = additions(s, result, false);
  const how = endAfterTurn(state, index, turn.output ?? '');
  const turnSet = {
    ...set,
    _seq: s._seq + 1,
    turnCount: index,
    lastTurnAt: turn.createdAt,
    ...(how ? { _end: how } : {}),
  };
  const options = { turn, remove: ['_userMessage'], ...(customId ? { customId } : {}) };
  const after = { ...s, ...turnSet } as RunSession;
  delete after._userMessage;
  if (
    how &&
    !finalizationDue(state, after) &&
    state.facts.closeNow &&
    (spans.length === 0 || !state.facts.metricsNeedSpans)
  ) {
    // The last turn: it is recorded with the close (and the count, when scored in code) in one transaction.
    const closing = { session: after, change: change(state, turnSet, options), turn, spans };
    return { next: { ...state, session: after }, effects: [{ type: 'plan', withTurn: closing }] };
  }
  const moved = write(state, turnSet, 'called', options);
  return { ...moved, effects: [...moved.effects, { type: 'recordSpans', turn, spans, counted: false }] };
}

/**
 * How a recorded turn ends the session, if it does: a single-turn case after its turn, an empty
 * answer, the last allowed turn.
 */
export function endAfterTurn(state: SessionState, index: number, output: string): SessionEnd | undefined {
  const { multi, maxTurns } = state.facts;
  if (!multi) return { status: 'COMPLETED', stoppingReason: 'completed', error: null };
  if (output.trim() === '') return { status: 'COMPLETED', stoppingReason: 'agent_empty_response', error: null };
  if (index >= maxTurns) return { status: 'COMPLETED', stoppingReason: 'max_iterations', error: null };
  return undefined;
}

/**
 * When a step that speaks at `now` stops waiting for news of its call: once its utterance has
 * played (its length unknown for sessions written before it was kept), CALL_NEWS_WINDOW_MS later;
 * an agent that speaks first is heard out (an answer's length at most) before the first utterance.
 */
export function newsDueAt(
  now: number,
  call: Pick<NonNullable<RunSession['_call']>, 'turn' | 'utteranceMs'>,
  agentSpeaksFirst: boolean,
): number {
  const greetingMs = call.turn === 1 && agentSpeaksFirst ? MAX_ANSWER_SECONDS * 1000 : 0;
  return now + greetingMs + (call.utteranceMs ?? 0) + CALL_NEWS_WINDOW_MS;
}

export { CALL_NEWS_WINDOW_MS };

const tools: DecideTools = {
  stop,
  end,
  close,
  write,
  change,
  userMessage,
  endAfterTurn,
  newsDueAt,
};
