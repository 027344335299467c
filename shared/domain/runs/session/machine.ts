import type { RunSession } from '../../../db/runs.js';
import type { StepChange } from '../../../db/run-steps.js';
import type { Evaluation, SpanCreate } from '../../../schemas/sessions.js';
import type { CallArgs } from '../../voice/voice-event.js';
import type { Turn } from '../../../schemas/sessions.js';

/**
 * A run session's life, written once: what `decide` sees of a session (its state), what moves it
 * (events), and what a decision asks for (effects, as plain data). Nothing here performs anything;
 * the runner (runner.ts) carries out a decision's effects and feeds their results back as events.
 */

/** The reason a session ends when its run is cancelled. */
export const CANCELLED_REASON = 'cancelled';

/** How a session's conversation ended: its final status, why, and what failed. */
export type SessionEnd = NonNullable<RunSession['_end']>;

/** What the job knows about the session's case and run while it decides (read with the step). */
export interface SessionFacts {
  channel: 'HTTP' | 'PHONE';
  /** The run was cancelled (read with the step, or learnt since). */
  cancelled: boolean;
  /** A SCENARIOS case (turns until the simulated user stops), else one turn. */
  multi: boolean;
  maxTurns: number;
  /** The case's first message, when it has one. */
  caseInput?: { message: string; input: Record<string, unknown> };
  testCaseId: string | null;
  conversation: boolean;
  initialization: boolean;
  finalization: boolean;
  /**
   * A PHONE run's session: whether the agent speaks first; its barge-in (`bargeInAfterMs`, absent:
   * none), or why its test case's value cannot be used (`bargeInError`).
   */
  phone?: { agentSpeaksFirst: boolean; bargeInAfterMs?: number; bargeInError?: string };
  /** Some metric of the run reads the turns' spans (so the last turn's spans are written before the close). */
  metricsNeedSpans: boolean;
  /** Enough of the invocation is left to close and score the session in this job. */
  closeNow: boolean;
  /** Where the session counts (for the intents the writes carry). */
  run: StepChange['run'];
  /** The session's entry in the run's plan (its evaluations and spans are counted there). */
  planIndex: number | undefined;
  now: string;
  nowMs: number;
}

/** What `decide` works on: the session as stored (and as this job's writes left it), and the facts. */
export interface SessionState {
  session: RunSession;
  facts: SessionFacts;
}

/** The user's message of the turn under way (case input, kept simulated message, or a new one). */
export interface UserMessage {
  message: string;
  input: Record<string, unknown>;
}

/** A delivered PHONE call event names the call it is about. */
type CallOf = { transactionId?: string };
/** Which part of a barged-in answer a recording is: its head, or the rest (with the head's key). */
type AnswerPart = { head?: true; headAudioKey?: string };

export type SessionEvent =
  /** A step job came for step `seq` (`attempts`: agent-call attempts made by earlier deliveries). */
  | { type: 'stepDelivered'; seq: number; attempts?: number }
  /** The run was cancelled: read with the step, or learnt while waiting for a rate-limit slot. */
  | { type: 'cancel'; seq: number }
  /** The agent's answer over HTTP (or a failed call, or a wait that goes back on the queue). */
  | { type: 'agentAnswered'; step: 'INITIALIZATION'; result: AgentResult }
  | { type: 'agentAnswered'; step: 'FINALIZATION'; result: AgentResult }
  | { type: 'agentAnswered'; step: 'CONVERSATION'; result: AgentResult; turn?: AnsweredTurn; user: UserMessage }
  /** The simulated user wrote the next message (its record written with its credits), or stopped. */
  | { type: 'userSimulated'; result: SimulatedUser; index: number }
  /** The next utterance was synthesized and stored, ready to play. */
  | { type: 'spoken'; result: Spoken; user: UserMessage; turn: number }
  /** The first turn's call was placed (its id is needed before the step is written). */
  | { type: 'callPlaced'; transactionId: string; call: Omit<PendingCall, 'transactionId'> }
  /** A later turn's utterance was played on the call, or the call was gone. */
  | { type: 'callPlayed'; state: CallState }
  /** Where the session's call is (asked without changing it, or by sending the turn's update again). */
  | {
      type: 'callChecked';
      state: CallState;
      purpose: 'redelivered' | 'replayed' | 'deadline' | 'deadlinePast';
      deadline?: { dueAt: number; turn: number };
    }
  /** PHONE: the agent's recorded answer to turn `turn` came (a barged-in answer's head, or its rest after the head). */
  | ({ type: 'callAnswered'; seq: number; turn: number; agentAudioKey: string } & AnswerPart & CallOf)
  /** PHONE: the recorded answer was heard (its latency and transcript: the turn). */
  | {
      type: 'answerHeard';
      result: { ok: true; turn: Turn; empty: boolean } | { ok: false; error: string };
      head?: true;
    }
  /** PHONE: the ended session's barge-ins were measured on its call recording (`found`), or it is not there yet. */
  | { type: 'bargeInsMeasured'; found: boolean; attempt: number }
  /** PHONE: the call ended. */
  | ({
      type: 'hangUp';
      seq: number;
      answered: boolean;
      recordingKey?: string;
      heard?: number;
    } & CallOf)
  /** PHONE: an action of the call failed. */
  | ({ type: 'callFailed'; seq: number; error: string } & CallOf)
  /** PHONE: the step's deadline for news of its call came. */
  | ({ type: 'deadline'; seq: number; deadlineSeq: number; turn: number; dueAt: number } & CallOf)
  /** A write of this job went through: the session moved on (`called`: after an agent call). */
  | { type: 'written'; called: boolean }
  /** The session's evaluations were planned (those scored in code settled), for its close. */
  | { type: 'planned'; evaluations: Evaluation[]; withTurn?: ClosingTurn }
  /** The close was written and left the session scoring (EVALUATING). */
  | { type: 'closed' }
  /** The session was counted on its run (`last`: the last of its sealed counter shard). */
  | { type: 'counted'; last: boolean };

export type AgentResult =
  | { kind: 'ok'; extracted: Record<string, unknown>; sessionId?: string }
  | { kind: 'failed'; error: string }
  | { kind: 'requeue'; delayMs: number; attempts: number };

/** A conversation turn as the HTTP channel recorded it from the answer. */
export interface AnsweredTurn {
  turn: Turn;
  spans: SpanCreate[];
}

export type SimulatedUser =
  | { ok: true; stop: boolean; reason: string; message: string; recorded?: boolean }
  | { ok: false; error: string };

export type Spoken =
  | { ok: true; userAudioKey: string; durationMs: number }
  | { ok: false; error: string }
  | { ok: false; noLine: true };

/** A call's state: `none` where no telephony is configured. */
export type CallState = 'live' | 'ended' | 'lost' | 'none';

/** The call a PHONE step waits on, as written on the session. */
export type PendingCall = NonNullable<RunSession['_call']>;

export type Effect =
  /** Write the state change, conditional on the session's step: one transaction. */
  | { type: 'write'; change: StepChange; after: 'continue' | 'called' | 'stop'; onMoved?: Effect[] }
  /** Call the agent's endpoint (one call and its retries). */
  | { type: 'callAgent'; step: 'INITIALIZATION'; attempts?: number }
  | { type: 'callAgent'; step: 'FINALIZATION'; attempts?: number }
  | { type: 'callAgent'; step: 'CONVERSATION'; attempts?: number; user: UserMessage }
  /** Ask the simulated user for the next message; what it says is written with its credits. */
  | { type: 'simulateUser'; index: number; onStop: StepChange; onMessage: StepChange }
  /** Synthesize and store the next utterance. */
  | { type: 'speak'; turn: number; user: UserMessage }
  | { type: 'placeCall'; args: CallArgs; call: Omit<PendingCall, 'transactionId'> }
  | { type: 'updateCall'; transactionId: string; args: CallArgs }
  | {
      type: 'checkCall';
      call: PendingCall;
      play: boolean;
      purpose: Extract<SessionEvent, { type: 'callChecked' }>['purpose'];
      deadline?: { dueAt: number; turn: number };
    }
  | { type: 'endCall'; transactionId: string }
  | ({ type: 'hearAnswer'; turn: number; agentAudioKey: string; call: PendingCall } & AnswerPart)
  /**
   * The ended session's call is hung up (unless its hang-up brought `recordingKey`), and its
   * barge-ins are measured on the call recording and written on their turns (`attempt`: how many
   * looks found no recording yet).
   */
  | { type: 'measureBargeIns'; attempt: number; transactionId: string; recordingKey?: string }
  | { type: 'setRecording'; recordingKey: string }
  /** Put the session's next step (or this one again, later) on the queue. */
  | { type: 'enqueueStep'; seq: number; delayMs?: number; attempts?: number; withTurns?: boolean; mark?: boolean }
  | { type: 'enqueueDeadline'; seq: number; turn: number; dueAt: number; transactionId: string }
  /** Record the turn's spans (`counted`: counted with the close already). */
  | { type: 'recordSpans'; turn: Turn; spans: SpanCreate[]; counted: boolean }
  /** Plan the closing session's evaluations (those of metrics scored in code, scored now). */
  | { type: 'plan'; withTurn?: ClosingTurn }
  /** Write the close (one transaction: final status, evaluations, the last turn, the count when settled). */
  | { type: 'close'; close: Close }
  /** Score the session's pending evaluations, then count it. */
  | { type: 'count' }
  /**
   * The session was counted: finish the run if it is done (`counted`: the count said the run may
   * be; else its shard is read to tell).
   */
  | { type: 'finishRun'; counted?: boolean };

/** The last turn, written with the close in one transaction (its spans recorded after). */
export interface ClosingTurn {
  session: RunSession;
  change: StepChange;
  turn: Turn;
  spans: SpanCreate[];
}

/** A close as the runner writes it (built by close.ts): the write, the session as it leaves it, and whether it counts it. */
export interface Close {
  change: StepChange;
  closed: RunSession;
  /** Every evaluation settled: the write counts the session too (phase DONE). */
  settled: boolean;
  evaluations: Evaluation[];
}

export interface Decision {
  next: SessionState;
  effects: Effect[];
}

type WriteOptions = Pick<StepChange, 'remove' | 'firstCall' | 'turn' | 'customId'> & { onMoved?: Effect[] };

/** What the PHONE decisions share with the rest of `decide`. */
export interface DecideTools {
  stop: (state: SessionState, effects?: Effect[]) => Decision;
  end: (state: SessionState, end: SessionEnd) => Decision;
  /** Close the ended session: its final status, its evaluations. */
  close: (state: SessionState) => Decision;
  write: (
    state: SessionState,
    set: Record<string, unknown>,
    then: 'continue' | 'called' | 'stop',
    options?: WriteOptions,
  ) => Decision;
  change: (state: SessionState, set: Record<string, unknown>, options?: WriteOptions) => StepChange;
  userMessage: (state: SessionState, then: (state: SessionState, user: UserMessage) => Decision) => Decision;
  endAfterTurn: (state: SessionState, index: number, output: string) => SessionEnd | undefined;
  newsDueAt: (now: number, call: Pick<PendingCall, 'turn' | 'utteranceMs'>, agentSpeaksFirst: boolean) => number;
}

export type { WriteOptions };

/** What the simulated user's answer writes (with its credits): its message kept, or the end. */
export function simulatedRecord(
  effect: Extract<Effect, { type: 'simulateUser' }>,
  answer: { stop: boolean; reason: string; message: string },
): StepChange {
  if (answer.stop && effect.index > 1) {
    const set = effect.onStop.set;
    return {
      ...effect.onStop,
      set: { ...set, _end: { status: 'COMPLETED', stoppingReason: answer.reason || 'simulator_stopped', error: null } },
    };
  }
  const set = effect.onMessage.set;
  const kept = set._userMessage as { seq: number };
  return { ...effect.onMessage, set: { ...set, _userMessage: { seq: kept.seq, message: answer.message } } };
}
