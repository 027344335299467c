import { setSessionRecording } from '../../../db/run-steps.js';
import { listTurns, updateTurnFields } from '../../../db/sessions.js';
import type { RunSession } from '../../../db/runs.js';
import { NotFoundError } from '../../../errors.js';
import { synthesizeSpeech, transcribeSpeech } from '../../../llm/speech.js';
import { logger } from '../../../observability/logger.js';
import { enqueueRunJobs } from '../../../queue/run-queue.js';
import { MAX_TURN_TEXT } from '../../../schemas/sessions.js';
import { objectUri, putObject, readObjectBytes } from '../../../storage/s3.js';
import { parseS3Uri } from '../../../storage/uri.js';
import { recordingBargeIns } from '../../../voice/barge-in.js';
import { type Telephony, telephony, voiceFromNumber } from '../../../telephony/telephony.js';
import { clock } from '../../common/clock.js';
import { newId } from '../../common/ids.js';
import { voicePrefix } from '../../voice/voice-event.js';
import { requestVoiceFigures } from '../../voice/voice-requests.js';
import type { Channel } from './channel.js';
import type { JobContext, StepContext } from './context.js';
import { callArgs } from './decide-phone.js';
import type { CallState, Effect, SessionEvent, SessionState } from './machine.js';
import type { Turn } from '../../../schemas/sessions.js';

/**
 * The PHONE channel: the service dials the agent's phone number. It synthesizes the turn's
 * message, places the call or plays the message on it, ends it, hears the agent's recorded answer
 * (its leading silence is the response latency, its transcript the turn's output), and keeps the
 * call's recording. The call-control handler brings the call's news back as the step's events.
 */
export const phoneChannel: Channel = {
  perform(effect, ctx, state, jctx) {
    return perform(effect, ctx, state, jctx);
  },
  remember(ctx, turn) {
    if (ctx.turns) ctx.turns = [...ctx.turns, { input: turn.input, output: turn.output }];
  },
  settle: hangUpEnded,
};

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

/**
 * A call the telephony has no record of: lost with the process that held it (the local phone line
 * is in memory, so after a restart it knows none of the calls before). Its hang-up or answer will
 * never come. False where the telephony cannot tell (Chime).
 */
const isLost = (telephony: Telephony, transactionId: string) => telephony.knowsCall?.(transactionId) === false;

async function perform(
  effect: Effect,
  ctx: StepContext,
  state: SessionState,
  jctx: JobContext,
): Promise<SessionEvent | undefined> {
  const s = state.session;
  switch (effect.type) {
    case 'speak':
      return speak(s, effect.turn, effect.user.message, jctx).then((result) => ({
        type: 'spoken',
        result,
        user: effect.user,
        turn: effect.turn,
      }));
    case 'placeCall': {
      const telephony = (await line())!;
      const placed = await telephony.createCall({
        fromNumber: fromNumber(),
        toNumber: ctx.rec.carry.phone!.phoneNumber,
        arguments: { ...effect.args },
      });
      return { type: 'callPlaced', transactionId: placed.transactionId, call: effect.call };
    }
    case 'updateCall': {
      const telephony = (await line())!;
      try {
        await telephony.updateCall(effect.transactionId, { action: 'play', ...effect.args });
        return { type: 'callPlayed', state: 'live' };
      } catch (error) {
        if (!isCallGone(error)) throw error;
        return { type: 'callPlayed', state: isLost(telephony, effect.transactionId) ? 'lost' : 'ended' };
      }
    }
    case 'checkCall':
      return {
        type: 'callChecked',
        state: await callState(effect, s),
        purpose: effect.purpose,
        ...(effect.deadline ? { deadline: effect.deadline } : {}),
      };
    case 'endCall': {
      const telephony = await line();
      if (telephony) await hangUp(telephony, effect.transactionId, s.id);
      return undefined;
    }
    case 'hearAnswer':
      return {
        type: 'answerHeard',
        result: await hear(ctx, s, effect, jctx),
        ...(effect.head ? { head: true as const } : {}),
      };
    case 'measureBargeIns':
      return { type: 'bargeInsMeasured', found: await measureBargeIns(s, effect), attempt: effect.attempt };
    case 'setRecording': {
      // The call's voice figures are computed from it by the voice job (its own memory and time).
      const recordingUri = objectUri(effect.recordingKey);
      await setSessionRecording(s.id, recordingUri);
      await requestVoiceFigures({ id: s.id, recordingUri });
      return undefined;
    }
    case 'enqueueDeadline':
      await enqueueRunJobs(
        [
          {
            kind: 'step',
            organizationId: s.organizationId,
            runId: ctx.runId,
            sessionId: s.id,
            seq: effect.seq,
            carry: ctx.rec.carry,
            voice: {
              event: 'deadline',
              seq: effect.seq,
              turn: effect.turn,
              dueAt: effect.dueAt,
              transactionId: effect.transactionId,
            },
          },
        ],
        effect.dueAt - clock.now().getTime(),
      );
      return undefined;
    default:
      return undefined;
  }
}

/** The turn's message, synthesized and stored, ready to play. */
async function speak(
  s: RunSession,
  turn: number,
  text: string,
  jctx: JobContext,
): Promise<Extract<SessionEvent, { type: 'spoken' }>['result']> {
  const remaining = jctx.remainingMs ? { remainingMs: jctx.remainingMs() - 5_000 } : {};
  const speech = await synthesizeSpeech({ organizationId: s.organizationId, text, ...remaining });
  if (!speech.ok) return { ok: false, error: speech.error };
  const userAudioKey = `${voicePrefix(s.organizationId, s.id)}${turn}-user.wav`;
  await putObject(userAudioKey, speech.wav, 'audio/wav');
  if (!(await line())) return { ok: false, noLine: true };
  return { ok: true, userAudioKey, durationMs: speech.durationMs };
}

/**
 * Where the session's call is. Asked without changing it (`play` false): `lost` when the telephony
 * has no record of it. With `play`, the turn's update is sent again (the call-control handler
 * ignores it): a call not under way `ended` when the telephony saw it end (the local line keeps a
 * record: its hang-up event is come or coming), or was `lost` (Chime's NotFound).
 */
async function callState(effect: Extract<Effect, { type: 'checkCall' }>, s: RunSession): Promise<CallState> {
  const telephony = await line();
  if (!telephony) return 'none';
  const { call } = effect;
  if (isLost(telephony, call.transactionId)) return 'lost';
  if (!effect.play) return 'live';
  try {
    await telephony.updateCall(call.transactionId, {
      action: 'play',
      ...callArgs(s, call.turn, call.userAudioKey, call.headMs),
    });
    return 'live';
  } catch (error) {
    if (!isCallGone(error)) throw error;
    return telephony.knowsCall ? 'ended' : 'lost';
  }
}

/** The agent's answer to the turn: its leading silence is the response latency, its transcript the turn's output. */
async function hear(
  ctx: StepContext,
  s: RunSession,
  effect: Extract<Effect, { type: 'hearAnswer' }>,
  jctx: JobContext,
): Promise<Extract<SessionEvent, { type: 'answerHeard' }>['result']> {
  const recorded = await readObjectBytes(effect.agentAudioKey);
  if (!recorded)
    return { ok: false, error: `PHONE turn ${effect.turn} failed: the agent's recorded answer was not found` };
  // The audio code (wavefile) is a lazy module: an HTTP run in the same function never loads it.
  const { concatSamples, decodeWav, encodeWav, leadingSilenceMs } = await import('#voice-audio');
  let wav: Uint8Array = recorded;
  let agentAudioKey = effect.agentAudioKey;
  let samples = decodeWav(recorded);
  const head = effect.headAudioKey ? await readObjectBytes(effect.headAudioKey) : undefined;
  if (head) {
    // A barged-in answer whose head held no words: the answer is the head and the rest, one after the other.
    samples = concatSamples([decodeWav(head), samples]);
    wav = encodeWav(samples);
    agentAudioKey = `${voicePrefix(s.organizationId, s.id)}${effect.turn}-agent.wav`;
    await putObject(agentAudioKey, wav, 'audio/wav');
  }
  const latencyMs = leadingSilenceMs(samples);
  let output = '';
  if (latencyMs !== null) {
    const language = ctx.rec.testCase?.languageCode ?? ctx.rec.test?.languageCode ?? undefined;
    const heard = await transcribeSpeech({
      organizationId: s.organizationId,
      wav,
      ...(language ? { language } : {}),
      ...(jctx.remainingMs ? { remainingMs: jctx.remainingMs() - 5_000 } : {}),
    });
    if (!heard.ok) return { ok: false, error: `transcription failed at turn ${effect.turn}: ${heard.error}` };
    output = heard.text.slice(0, MAX_TURN_TEXT);
  }
  const turn: Turn = {
    id: newId('inferenceResult'),
    organizationId: s.organizationId,
    sessionId: s.id,
    index: effect.turn,
    input: effect.call.message,
    output,
    retrievalContext: [],
    latencyMs: latencyMs === null ? null : Math.round(latencyMs),
    usage: { inputTokens: 0, outputTokens: 0, cacheReadInputTokens: 0 },
    cost: null,
    metadata: {
      userAudioUri: objectUri(effect.call.userAudioKey),
      agentAudioUri: objectUri(agentAudioKey),
    },
    createdAt: clock.now().toISOString(),
  };
  return { ok: true, turn, empty: latencyMs === null };
}

/**
 * The ended session's barge-ins, measured on its call recording and written on their turns
 * (`metadata.bargeIn`); false when the recording is not there yet. Its call is hung up first
 * (unless the hang-up is what brought the recording's key). The recording's key comes with the
 * hang-up, which also sets it on the session; Chime may write the file some time after.
 */
async function measureBargeIns(s: RunSession, effect: Extract<Effect, { type: 'measureBargeIns' }>): Promise<boolean> {
  if (!effect.recordingKey) {
    const telephony = await line();
    if (telephony) await hangUp(telephony, effect.transactionId, s.id);
  }
  const key = effect.recordingKey ?? (s.recordingUri ? parseS3Uri(s.recordingUri)?.key : undefined);
  const wav = key ? await readObjectBytes(key) : undefined;
  if (!wav) return false;
  const { decodeStereoWav } = await import('#voice-audio');
  let recording: ReturnType<typeof decodeStereoWav>;
  try {
    recording = decodeStereoWav(wav);
  } catch (error) {
    logger.warn('voice call recording unreadable: barge-ins not measured', { sessionId: s.id, error: String(error) });
    return true;
  }
  const turns = await listTurns(s.id);
  const measured = recordingBargeIns(
    recording,
    s._utteranceMs ?? [],
    turns.map((t) => t.index),
  );
  for (const turn of turns) {
    const bargeIn = measured.get(turn.index);
    if (bargeIn) await updateTurnFields(turn, { metadata: { ...turn.metadata, bargeIn } });
  }
  return true;
}

/** Hangs up a session's call once the session ended (a redelivery, or a call already gone, changes nothing). */
async function hangUpEnded(s: RunSession): Promise<void> {
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
