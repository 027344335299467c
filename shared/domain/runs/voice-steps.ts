import type { RunSession } from '../../db/runs.js';
import { setSessionRecording } from '../../db/run-steps.js';
import { synthesizeSpeech, transcribeSpeech } from '../../llm/speech.js';
import { NotFoundError } from '../../errors.js';
import { logger } from '../../observability/logger.js';
import { MAX_TURN_TEXT, type Turn } from '../../schemas/sessions.js';
import { objectUri, putObject, readObjectBytes } from '../../storage/s3.js';
import { type Telephony, telephony, voiceFromNumber } from '../../telephony/telephony.js';
import { clock } from '../common/clock.js';
import { newId } from '../common/ids.js';
import { type CallArgs, type VoiceEvent, voicePrefix } from '../voice/voice-event.js';
import { enqueueRunJobs } from '../../queue/run-queue.js';
import { CALL_NEWS_WINDOW_MS, MAX_ANSWER_SECONDS } from '../../voice/line.js';
import {
  advance,
  endAfterTurn,
  endStep,
  type JobContext,
  nextUserMessage,
  type StepContext,
  type StepOutcome,
} from './execution.js';

/**
 * The steps of a PHONE session (a voice run). The session's steps are those of an HTTP session
 * (one per turn, each conditional on the session's step), with the agent call replaced by the
 * phone call: a step without a voice event speaks the turn's message (synthesized, then played on
 * the call it places or updates) and stops; the call-control handler then queues the same step
 * with the agent's recorded answer, which is transcribed and recorded as the turn. The call's end
 * (hang-up, no answer, a failed action) comes the same way.
 */

/** The number a deployment calls from; the local phone line accepts any. */
const fromNumber = () => voiceFromNumber() ?? '+15550100000';

let line: () => Promise<Telephony | undefined> = async () => telephony();

/** Where PHONE steps find the telephony (the Chime client, or the local emulator). */
export function useVoiceLine(find: () => Promise<Telephony | undefined>): void {
  line = find;
}

/** A call that ended: Chime's client says NotFoundError (shared/telephony/chime.ts), the local line the SDK's NotFoundException. */
const isCallGone = (error: unknown) =>
  error instanceof NotFoundError || (error as { name?: string }).name === 'NotFoundException';

/** How a session ends whose call is gone without a word of how it ended. */
const CALL_LOST = 'the call was lost: the service restarted';
const lostEnd = (): NonNullable<RunSession['_end']> => ({ status: 'FAILED', stoppingReason: null, error: CALL_LOST });

/**
 * A call the telephony has no record of: lost with the process that held it (the local phone line
 * is in memory, so after a restart it knows none of the calls before). Its hang-up or answer will
 * never come. False where the telephony cannot tell (Chime).
 */
const isLost = (telephony: Telephony, transactionId: string) => telephony.knowsCall?.(transactionId) === false;

export async function voiceStep(
  ctx: StepContext,
  s: RunSession,
  jctx: JobContext,
  voice: VoiceEvent | undefined,
): Promise<StepOutcome> {
  if (!voice) return speak(ctx, s, jctx);
  if (voice.event === 'deadline') return deadlineReached(ctx, s, voice);
  // Another delivery's call (placed, then left when the session's own call won): hung up, not heeded.
  if (voice.transactionId && s._call && voice.transactionId !== s._call.transactionId) {
    if (voice.event !== 'hangup') {
      const telephony = await line();
      if (telephony) await hangUp(telephony, voice.transactionId, s.id);
    }
    return { kind: 'stop' };
  }
  if (voice.event === 'answer') return recordAnswer(ctx, s, jctx, voice);
  if (voice.event === 'failed')
    return endStep(ctx, s, { status: 'FAILED', stoppingReason: null, error: `PHONE call failed: ${voice.error}` });
  return callEnded(ctx, s, voice);
}

/** Speaks the next turn's message: synthesized, stored, then played on the call (placed for the first turn). */
async function speak(ctx: StepContext, at: RunSession, jctx: JobContext): Promise<StepOutcome> {
  const phone = ctx.rec.carry.phone;
  if (!phone)
    return endStep(ctx, at, {
      status: 'FAILED',
      stoppingReason: null,
      error: 'PHONE: the version has no live phone connection',
    });
  const turn = at.turnCount + 1;
  // Already written by an earlier delivery of this step. A first turn's call was placed before it
  // was written, and carries on. A later turn's update is sent after the write: the delivery may
  // have stopped in between, so it is sent again (the call-control handler ignores an update of
  // the turn the call is already on).
  // Delivered again while it waits on its call: a call that was lost (the service restarted) ends
  // the session at once.
  if (at._call && at._call.seq === at._seq && at._call.turn === turn) {
    const telephony = await line();
    if (telephony && isLost(telephony, at._call.transactionId)) return endStep(ctx, at, lostEnd());
    if (turn > 1) return updateAgain(ctx, at, at._call);
    await awaitNews(ctx, at, at._call);
    return { kind: 'stop' };
  }
  const next = await nextUserMessage(ctx, at);
  if (next.kind === 'outcome') return next.outcome;
  const s = next.session;
  const remaining = jctx.remainingMs ? { remainingMs: jctx.remainingMs() - 5_000 } : {};
  const speech = await synthesizeSpeech({ organizationId: s.organizationId, text: next.message, ...remaining });
  if (!speech.ok)
    return endStep(ctx, s, {
      status: 'FAILED',
      stoppingReason: null,
      error: `speech synthesis failed before turn ${turn}: ${speech.error}`,
    });
  const userAudioKey = `${voicePrefix(s.organizationId, s.id)}${turn}-user.wav`;
  await putObject(userAudioKey, speech.wav, 'audio/wav');
  const telephony = await line();
  if (!telephony)
    return endStep(ctx, s, {
      status: 'FAILED',
      stoppingReason: null,
      error: 'PHONE: no telephony is configured for this deployment',
    });
  const args: CallArgs = {
    ...callArgs(ctx, s, turn, userAudioKey),
    ...(turn === 1 && phone.agentSpeaksFirst ? { agentSpeaksFirst: '1' } : {}),
  };
  const call = (transactionId: string) => ({
    transactionId,
    seq: s._seq,
    turn,
    message: next.message.slice(0, MAX_TURN_TEXT),
    userAudioKey,
    utteranceMs: speech.durationMs,
  });
  // Only one delivery of a step speaks: the call it waits on is written on condition that no other
  // delivery wrote it. A first turn places its call before (its id is needed) and hangs it up if
  // another delivery's call won; a later turn writes first, then updates the call.
  const existing = s._call?.transactionId;
  if (!existing) {
    const placed = await telephony.createCall({
      fromNumber: fromNumber(),
      toNumber: phone.phoneNumber,
      arguments: { ...args },
    });
    const moved = await advance(ctx, s, { _call: call(placed.transactionId) }, false, { firstCall: true });
    if (moved.kind !== 'advanced') await hangUp(telephony, placed.transactionId, s.id);
    else await awaitNews(ctx, moved.session, moved.session._call!);
    return { kind: 'stop' };
  }
  const moved = await advance(ctx, s, { _call: call(existing) }, false, { firstCall: true });
  if (moved.kind !== 'advanced') return { kind: 'stop' };
  return play(ctx, telephony, moved.session, moved.session._call!, args);
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

/**
 * Puts the step's deadline on the run queue: due CALL_NEWS_WINDOW_MS after the utterance has
 * played, it fails the session if no news of the call came by then. Each delivery that leaves the
 * step waiting puts one; the one that finds the session moved on changes nothing.
 */
async function awaitNews(ctx: StepContext, s: RunSession, call: NonNullable<RunSession['_call']>): Promise<void> {
  const dueAt = newsDueAt(clock.now().getTime(), call, ctx.rec.carry.phone?.agentSpeaksFirst ?? false);
  await queueDeadline(ctx, s, {
    event: 'deadline',
    seq: call.seq,
    turn: call.turn,
    dueAt,
    transactionId: call.transactionId,
  });
}

async function queueDeadline(
  ctx: StepContext,
  s: RunSession,
  deadline: Extract<VoiceEvent, { event: 'deadline' }>,
): Promise<void> {
  await enqueueRunJobs(
    [
      {
        kind: 'step',
        organizationId: s.organizationId,
        runId: ctx.runId,
        sessionId: s.id,
        seq: deadline.seq,
        carry: ctx.rec.carry,
        voice: deadline,
      },
    ],
    deadline.dueAt - clock.now().getTime(),
  );
}

/**
 * A step's deadline came. A session no longer waiting on that call for that turn heard of it (or
 * ended): nothing to do. A call that was lost ends the session at once. Still waiting before the
 * deadline (SQS delays a message 15 minutes at most), the deadline goes back on the queue for the
 * rest. Past it, the session fails, and its call is hung up once the end is written (processStep).
 */
async function deadlineReached(
  ctx: StepContext,
  s: RunSession,
  deadline: Extract<VoiceEvent, { event: 'deadline' }>,
): Promise<StepOutcome> {
  const call = s._call;
  const waiting =
    !s._end &&
    s._seq === deadline.seq &&
    call?.seq === deadline.seq &&
    call.turn === deadline.turn &&
    call.transactionId === deadline.transactionId;
  if (!waiting) return { kind: 'stop' };
  const telephony = await line();
  if (telephony && isLost(telephony, call.transactionId)) return endStep(ctx, s, lostEnd());
  if (clock.now().getTime() < deadline.dueAt) {
    await queueDeadline(ctx, s, deadline);
    return { kind: 'stop' };
  }
  // No news by now: from a call that no longer exists (one Chime no longer knows), or from one
  // still under way, which is hung up once the end is written (processStep).
  if (telephony && (await callState(ctx, telephony, s, call)) === 'lost') return endStep(ctx, s, lostEnd());
  return endStep(ctx, s, {
    status: 'FAILED',
    stoppingReason: null,
    error: `PHONE: no news of the call within ${CALL_NEWS_WINDOW_MS / 60_000} minutes of turn ${deadline.turn}'s utterance (no answer recorded, no hang-up reported)`,
  });
}

/** The arguments of the session's call for one turn (strings, as Chime carries them). */
function callArgs(ctx: StepContext, s: RunSession, turn: number, userAudioKey: string): CallArgs {
  return {
    organizationId: s.organizationId,
    runId: ctx.runId,
    sessionId: s.id,
    seq: String(s._seq),
    turn: String(turn),
    userAudioKey,
  };
}

/**
 * Plays a later turn's message on the session's call. A call already gone ends the session as a
 * hang-up (its hang-up event, come or coming, says no more), or, lost, as such.
 */
async function play(
  ctx: StepContext,
  telephony: Telephony,
  s: RunSession,
  call: NonNullable<RunSession['_call']>,
  args: CallArgs,
): Promise<StepOutcome> {
  try {
    await telephony.updateCall(call.transactionId, { action: 'play', ...args });
  } catch (error) {
    if (!isCallGone(error)) throw error;
    return endStep(ctx, s, isLost(telephony, call.transactionId) ? lostEnd() : hangupEnd(s, true));
  }
  await awaitNews(ctx, s, call);
  return { kind: 'stop' };
}

/**
 * Sends a later turn's update again (a redelivery of the step that wrote it): its message was
 * synthesized and stored. The call-control handler ignores an update of the turn the call is on.
 */
async function updateAgain(
  ctx: StepContext,
  s: RunSession,
  call: NonNullable<RunSession['_call']>,
): Promise<StepOutcome> {
  const telephony = await line();
  if (!telephony) return { kind: 'stop' };
  const state = await callState(ctx, telephony, s, call);
  if (state === 'lost') return endStep(ctx, s, lostEnd());
  if (state === 'ended') return endStep(ctx, s, hangupEnd(s, true));
  await awaitNews(ctx, s, call);
  return { kind: 'stop' };
}

/**
 * Where the session's call is, asked without changing it: the turn's update is sent again (the
 * call-control handler ignores it). A call not under way `ended` when the telephony saw it end
 * (the local line keeps a record: its hang-up event is come or coming), or was `lost`: the
 * telephony has no record of it (the local line restarted), or cannot say and no longer knows it
 * (Chime's NotFound).
 */
async function callState(
  ctx: StepContext,
  telephony: Telephony,
  s: RunSession,
  call: NonNullable<RunSession['_call']>,
): Promise<'live' | 'ended' | 'lost'> {
  if (isLost(telephony, call.transactionId)) return 'lost';
  try {
    await telephony.updateCall(call.transactionId, {
      action: 'play',
      ...callArgs(ctx, s, call.turn, call.userAudioKey),
    });
    return 'live';
  } catch (error) {
    if (!isCallGone(error)) throw error;
    return telephony.knowsCall ? 'ended' : 'lost';
  }
}

/** The agent's answer to the turn: its leading silence is the response latency, its transcript the turn's output. */
async function recordAnswer(
  ctx: StepContext,
  s: RunSession,
  jctx: JobContext,
  voice: Extract<VoiceEvent, { event: 'answer' }>,
): Promise<StepOutcome> {
  const call = s._call;
  if (!call || call.turn !== voice.turn || call.seq !== s._seq) return { kind: 'stop' }; // stale or done
  const wav = await readObjectBytes(voice.agentAudioKey);
  if (!wav)
    return endStep(ctx, s, {
      status: 'FAILED',
      stoppingReason: null,
      error: `PHONE turn ${voice.turn} failed: the agent's recorded answer was not found`,
    });
  // The audio code (wavefile) is a lazy module: an HTTP run in the same function never loads it.
  const { decodeWav, leadingSilenceMs } = await import('#voice-audio');
  const latencyMs = leadingSilenceMs(decodeWav(wav));
  let output = '';
  if (latencyMs !== null) {
    const language = ctx.rec.testCase?.languageCode ?? ctx.rec.test?.languageCode ?? undefined;
    const heard = await transcribeSpeech({
      organizationId: s.organizationId,
      wav,
      ...(language ? { language } : {}),
      ...(jctx.remainingMs ? { remainingMs: jctx.remainingMs() - 5_000 } : {}),
    });
    if (!heard.ok)
      return endStep(ctx, s, {
        status: 'FAILED',
        stoppingReason: null,
        error: `transcription failed at turn ${voice.turn}: ${heard.error}`,
      });
    output = heard.text.slice(0, MAX_TURN_TEXT);
  }
  const now = clock.now().toISOString();
  const turn: Turn = {
    id: newId('inferenceResult'),
    organizationId: s.organizationId,
    sessionId: s.id,
    index: voice.turn,
    input: call.message,
    output,
    retrievalContext: [],
    latencyMs: latencyMs === null ? null : Math.round(latencyMs),
    usage: { inputTokens: 0, outputTokens: 0, cacheReadInputTokens: 0 },
    cost: null,
    metadata: { userAudioUri: objectUri(call.userAudioKey), agentAudioUri: objectUri(voice.agentAudioKey) },
    createdAt: now,
  };
  const end =
    latencyMs === null
      ? { status: 'COMPLETED' as const, stoppingReason: 'agent_empty_response', error: null }
      : endAfterTurn(ctx, voice.turn, output);
  const set = { _seq: s._seq + 1, turnCount: voice.turn, lastTurnAt: now, ...(end ? { _end: end } : {}) };
  const moved = await advance(ctx, s, set, true, { turn, remove: ['_userMessage'] });
  if (moved.kind === 'advanced' && ctx.turns) ctx.turns = [...ctx.turns, { input: turn.input, output: turn.output }];
  return moved;
}

/** How a call that ended on the agent's side ends its session. */
function hangupEnd(s: RunSession, answered: boolean): NonNullable<RunSession['_end']> {
  if (s.turnCount > 0) return { status: 'COMPLETED', stoppingReason: 'hangup', error: null };
  if (answered)
    return { status: 'FAILED', stoppingReason: 'hangup', error: 'PHONE: the agent hung up before answering' };
  return { status: 'FAILED', stoppingReason: 'no_answer', error: 'PHONE: the agent did not answer the call' };
}

/** The call ended: its recording is the session's, and a session still talking ends. */
async function callEnded(
  ctx: StepContext,
  s: RunSession,
  voice: Extract<VoiceEvent, { event: 'hangup' }>,
): Promise<StepOutcome> {
  if (voice.recordingKey) await setSessionRecording(s.id, objectUri(voice.recordingKey));
  if (s._end || s.status !== 'PENDING') return { kind: 'stop' };
  // The answer to the turn under way was heard before the hang-up: its step records it, then finds
  // the call gone and ends the session (a hang-up after an answer).
  if (voice.heard !== undefined && s._call?.turn === voice.heard && s._call.seq === s._seq && s.turnCount < voice.heard)
    return { kind: 'stop' };
  return endStep(ctx, s, hangupEnd(s, voice.answered));
}

/** Hangs up a session's call once the session ended (a redelivery, or a call already gone, changes nothing). */
export async function hangUpEnded(s: RunSession): Promise<void> {
  if (!s._call || (!s._end && s.status === 'PENDING')) return;
  const telephony = await line();
  if (telephony) await hangUp(telephony, s._call.transactionId, s.id);
}

async function hangUp(telephony: Telephony, transactionId: string, sessionId: string): Promise<void> {
  try {
    await telephony.updateCall(transactionId, { action: 'hangup' });
  } catch (error) {
    if (!isCallGone(error)) logger.warn('voice call not hung up', { sessionId, error: String(error) });
  }
}
