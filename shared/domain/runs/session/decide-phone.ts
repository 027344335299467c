import type { RunSession } from '../../../db/runs.js';
import { MAX_TURN_TEXT } from '../../../schemas/sessions.js';
import { CALL_NEWS_WINDOW_MS } from '../../../voice/line.js';
import type { CallArgs } from '../../voice/voice-event.js';
import { headMs, latencyWrite, measured, utteranceWrite } from './decide-barge-in.js';
import type {
  CallState,
  DecideTools,
  Decision,
  Effect,
  PendingCall,
  SessionEnd,
  SessionEvent,
  SessionState,
  UserMessage,
} from './machine.js';

/**
 * The PHONE half of `decide` (pure, as the rest). A PHONE session's steps are those of an HTTP
 * session (one per turn, each conditional on the session's step), with the agent call replaced by
 * the phone call: a step without news of its call speaks the turn's message (synthesized, then
 * played on the call it places or updates) and waits; the call-control handler then queues the
 * same step with the agent's recorded answer, which is heard and recorded as the turn. The call's
 * end (hang-up, no answer, a failed action) and the step's deadline come the same way.
 */
export function phoneDecisions(state: SessionState, event: SessionEvent, t: DecideTools, user?: UserMessage): Decision {
  const s = state.session;
  switch (event.type) {
    case 'stepDelivered':
    case 'cancel':
      return user ? t.stop(state, [{ type: 'speak', turn: s.turnCount + 1, user }]) : speakNext(state, t);
    case 'deadline':
      return deadlineCame(state, event, t);
    case 'spoken':
      return spoken(state, event, t);
    case 'callPlaced': {
      const call: PendingCall = { ...event.call, transactionId: event.transactionId };
      const placed = t.write(state, { _call: call, ...utteranceWrite(state, call) }, 'stop', {
        firstCall: true,
        onMoved: [{ type: 'endCall', transactionId: event.transactionId }],
      });
      return { ...placed, effects: [...placed.effects, awaitNews(state, call, t)] };
    }
    case 'callPlayed':
      return played(state, event.state, t);
    case 'callChecked':
      return checked(state, event, t);
    case 'bargeInsMeasured':
      return measured(state, event, t);
    case 'answerHeard': {
      const { result } = event;
      if (!result.ok) return t.end(state, failed(result.error));
      const { turn } = result;
      // A barged-in answer's head with no words in it yet (a slow agent): the rest, recorded meanwhile, is the answer.
      if (event.head && (result.empty || !turn.output?.trim())) return t.stop(state);
      const how = result.empty
        ? { status: 'COMPLETED' as const, stoppingReason: 'agent_empty_response', error: null }
        : t.endAfterTurn(state, turn.index, turn.output ?? '');
      const set = {
        _seq: s._seq + 1,
        turnCount: turn.index,
        lastTurnAt: turn.createdAt,
        ...(how ? { _end: how } : {}),
        ...latencyWrite(state, turn.latencyMs),
      };
      return t.write(state, set, 'called', { turn, remove: ['_userMessage'] });
    }
    default:
      break;
  }
  // News of a call: another delivery's call (placed, then left when the session's own call won) is hung up, not heeded.
  if ('transactionId' in event && event.transactionId && s._call && event.transactionId !== s._call.transactionId)
    return t.stop(state, event.type === 'hangUp' ? [] : [{ type: 'endCall', transactionId: event.transactionId }]);
  if (event.type === 'callAnswered') {
    const call = s._call;
    if (!call || call.turn !== event.turn || call.seq !== s._seq) return t.stop(state); // stale or done
    const part = {
      ...(event.head ? { head: true as const } : {}),
      ...(event.headAudioKey ? { headAudioKey: event.headAudioKey } : {}),
    };
    return t.stop(state, [{ type: 'hearAnswer', turn: event.turn, agentAudioKey: event.agentAudioKey, call, ...part }]);
  }
  if (event.type === 'callFailed') return t.end(state, failed(`PHONE call failed: ${event.error}`));
  if (event.type === 'hangUp') return hungUp(state, event, t);
  return t.stop(state);
}

const failed = (error: string): SessionEnd => ({ status: 'FAILED', stoppingReason: null, error });

/** How a session ends whose call is gone without a word of how it ended. */
const lostEnd = (): SessionEnd => failed('the call was lost: the service restarted');

/** How a call that ended on the agent's side ends its session. */
function hangupEnd(s: RunSession, answered: boolean): SessionEnd {
  if (s.turnCount > 0) return { status: 'COMPLETED', stoppingReason: 'hangup', error: null };
  if (answered)
    return { status: 'FAILED', stoppingReason: 'hangup', error: 'PHONE: the agent hung up before answering' };
  return { status: 'FAILED', stoppingReason: 'no_answer', error: 'PHONE: the agent did not answer the call' };
}

/**
 * Speaks the next turn's message. Already written by an earlier delivery of this step: a first
 * turn's call was placed before it was written, and carries on; a later turn's update is sent after
 * the write (the delivery may have stopped in between), so it is sent again (the call-control
 * handler ignores an update of the turn the call is already on). A call that was lost (the service
 * restarted) ends the session at once.
 */
function speakNext(state: SessionState, t: DecideTools): Decision {
  const s = state.session;
  if (!state.facts.phone) return t.end(state, failed('PHONE: the version has no live phone connection'));
  if (state.facts.phone.bargeInError) return t.end(state, failed(`PHONE: ${state.facts.phone.bargeInError}`));
  const turn = s.turnCount + 1;
  if (s._call && s._call.seq === s._seq && s._call.turn === turn)
    return t.stop(state, [{ type: 'checkCall', call: s._call, play: false, purpose: 'redelivered' }]);
  return t.userMessage(state, (at, user) => t.stop(at, [{ type: 'speak', turn, user }]));
}

/** The arguments of the session's call for one turn (strings, as Chime carries them); `headMs` for a barged-in answer. */
export function callArgs(s: RunSession, turn: number, userAudioKey: string, headMs?: number): CallArgs {
  return {
    organizationId: s.organizationId,
    runId: s.runId,
    sessionId: s.id,
    seq: String(s._seq),
    turn: String(turn),
    userAudioKey,
    ...(headMs !== undefined ? { headMs: String(headMs) } : {}),
  };
}

/**
 * The utterance is ready. Only one delivery of a step speaks: the call it waits on is written on
 * condition that no other delivery wrote it. A first turn places its call before (its id is
 * needed) and hangs it up if another delivery's call won; a later turn writes first, then plays.
 */
function spoken(state: SessionState, event: Extract<SessionEvent, { type: 'spoken' }>, t: DecideTools): Decision {
  const s = state.session;
  const { result, turn, user } = event;
  if (!result.ok)
    return t.end(
      state,
      failed(
        'noLine' in result
          ? 'PHONE: no telephony is configured for this deployment'
          : `speech synthesis failed before turn ${turn}: ${result.error}`,
      ),
    );
  const head = headMs(state, turn);
  const args: CallArgs = {
    ...callArgs(s, turn, result.userAudioKey, head),
    ...(turn === 1 && state.facts.phone?.agentSpeaksFirst ? { agentSpeaksFirst: '1' } : {}),
  };
  const call = {
    seq: s._seq,
    turn,
    message: user.message.slice(0, MAX_TURN_TEXT),
    userAudioKey: result.userAudioKey,
    utteranceMs: result.durationMs,
    ...(head !== undefined ? { headMs: head } : {}),
  };
  const existing = s._call?.transactionId;
  if (!existing) return t.stop(state, [{ type: 'placeCall', args, call }]);
  const moved = t.write(
    state,
    { _call: { ...call, transactionId: existing }, ...utteranceWrite(state, call) },
    'stop',
    {
      firstCall: true,
    },
  );
  return { ...moved, effects: [...moved.effects, { type: 'updateCall', transactionId: existing, args }] };
}

/**
 * Puts the step's deadline on the run queue: due CALL_NEWS_WINDOW_MS after the utterance has
 * played, it fails the session if no news of the call came by then.
 */
function awaitNews(state: SessionState, call: PendingCall, t: DecideTools): Effect {
  return {
    type: 'enqueueDeadline',
    seq: call.seq,
    turn: call.turn,
    dueAt: t.newsDueAt(state.facts.nowMs, call, state.facts.phone?.agentSpeaksFirst ?? false),
    transactionId: call.transactionId,
  };
}

/** A later turn's utterance was played: wait for news; a call already gone ends the session (a hang-up, or lost). */
function played(state: SessionState, call: CallState, t: DecideTools): Decision {
  const s = state.session;
  if (call === 'lost') return t.end(state, lostEnd());
  if (call === 'ended') return t.end(state, hangupEnd(s, true));
  return t.stop(state, [awaitNews(state, s._call!, t)]);
}

/**
 * A step's deadline came. A session no longer waiting on that call for that turn heard of it (or
 * ended): nothing to do. A call that was lost ends the session at once. Still waiting before the
 * deadline (SQS delays a message 15 minutes at most), the deadline goes back on the queue for the
 * rest. Past it, the session fails, and its call is hung up once the end is written.
 */
function deadlineCame(
  state: SessionState,
  event: Extract<SessionEvent, { type: 'deadline' }>,
  t: DecideTools,
): Decision {
  const s = state.session;
  const call = s._call;
  const waiting =
    !s._end &&
    s._seq === event.deadlineSeq &&
    call?.seq === event.deadlineSeq &&
    call.turn === event.turn &&
    call.transactionId === event.transactionId;
  if (!waiting) return t.stop(state);
  return t.stop(state, [
    { type: 'checkCall', call, play: false, purpose: 'deadline', deadline: { dueAt: event.dueAt, turn: event.turn } },
  ]);
}

/** Where the session's call is, asked for a redelivered step or at a deadline. */
function checked(state: SessionState, event: Extract<SessionEvent, { type: 'callChecked' }>, t: DecideTools): Decision {
  const s = state.session;
  const call = s._call!;
  if (event.state === 'lost') return t.end(state, lostEnd());
  switch (event.purpose) {
    case 'redelivered':
      if (call.turn > 1)
        return event.state === 'none'
          ? t.stop(state)
          : t.stop(state, [{ type: 'checkCall', call, play: true, purpose: 'replayed' }]);
      return t.stop(state, [awaitNews(state, call, t)]);
    case 'replayed':
      return played(state, event.state, t);
    case 'deadline': {
      const deadline = event.deadline!;
      if (state.facts.nowMs < deadline.dueAt)
        return t.stop(state, [
          {
            type: 'enqueueDeadline',
            seq: call.seq,
            turn: deadline.turn,
            dueAt: deadline.dueAt,
            transactionId: call.transactionId,
          },
        ]);
      // No news by now: from a call that no longer exists (one Chime no longer knows), or from one
      // still under way, which is hung up once the end is written.
      if (event.state !== 'none')
        return t.stop(state, [{ type: 'checkCall', call, play: true, purpose: 'deadlinePast', deadline }]);
      return t.end(state, noNews(deadline.turn));
    }
    case 'deadlinePast':
      return t.end(state, noNews(event.deadline!.turn));
  }
}

const noNews = (turn: number): SessionEnd =>
  failed(
    `PHONE: no news of the call within ${CALL_NEWS_WINDOW_MS / 60_000} minutes of turn ${turn}'s utterance (no answer recorded, no hang-up reported)`,
  );

/** The call ended: its recording is the session's, and a session still talking ends. */
function hungUp(state: SessionState, event: Extract<SessionEvent, { type: 'hangUp' }>, t: DecideTools): Decision {
  const s = state.session;
  const recording: Effect[] = event.recordingKey ? [{ type: 'setRecording', recordingKey: event.recordingKey }] : [];
  if (s._end || s.status !== 'PENDING') return t.stop(state, recording);
  // The answer to the turn under way was heard before the hang-up: its step records it, then finds
  // the call gone and ends the session (a hang-up after an answer).
  if (event.heard !== undefined && s._call?.turn === event.heard && s._call.seq === s._seq && s.turnCount < event.heard)
    return t.stop(state, recording);
  const ended = t.end(state, hangupEnd(s, event.answered));
  return { ...ended, effects: [...recording, ...ended.effects] };
}
