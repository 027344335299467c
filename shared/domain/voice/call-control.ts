import { ENV, optionalEnv } from '../../config/env.js';
import { logger } from '../../observability/logger.js';
import { getRunSession } from '../../db/runs.js';
import { enqueueRunJobs } from '../../queue/run-queue.js';
import { bucketName } from '../../storage/s3.js';
import { type ChimeAction, type ChimeEvent, type ChimeResponse, callArguments } from '../../telephony/chime-events.js';
import { DEFAULT_SILENCE_THRESHOLD, MAX_ANSWER_SECONDS } from '../../voice/line.js';
import { type CallArgs, type VoiceEvent, voicePrefix } from './voice-event.js';

/**
 * The call-control handler of voice runs: Chime's PSTN audio service (or the local phone line
 * emulator) invokes it with each event of a call, and it answers with the actions that carry the
 * conversation on. It holds no state of its own: what it needs travels in the call's arguments
 * (kept as transaction attributes), and what it learns goes to the session's step job on the run
 * queue, which records it conditionally on the session's step. So an invocation Chime retries
 * queues a job that changes nothing the second time, and answers with the same actions.
 *
 * - CALL_ANSWERED: start recording the call (both sides); once it is recording, play the first
 *   utterance and record the answer (or, when the agent speaks first, record its greeting, then play).
 * - ACTION_SUCCESSFUL of RecordAudio: the answer goes to the session's step (transcribed there, the
 *   next utterance decided, and the call updated); the call pauses meanwhile.
 * - CALL_UPDATE_REQUESTED: play the next utterance and record the answer, or hang up. A barged-in
 *   turn's answer (`headMs`) is recorded in two parts: its head goes to the session's step at once,
 *   and the step's next update interrupts the recording of the rest, playing over the agent.
 *   Chime runs one media action at a time, so what the agent says while we speak is only on the
 *   call recording: the session measures its barge-ins there once the call has ended.
 * - HANGUP, ACTION_FAILED: the session's step learns how the call ended.
 */

/** How long a pause waits for the session's step before it pauses again. */
export const PAUSE_MS = 10_000;
/** Silence after speech that ends an answer (Chime's SilenceDurationInSeconds). */
export const ANSWER_SILENCE_SECONDS = 2;

const answerSeconds = () => {
  const value = Number(optionalEnv(ENV.voiceAnswerSeconds) ?? 30);
  return Number.isFinite(value) && value >= 1 ? Math.min(MAX_ANSWER_SECONDS, Math.round(value)) : 30;
};

const ok = (actions: ChimeAction[], attributes?: Record<string, string>): ChimeResponse => ({
  SchemaVersion: '1.0',
  Actions: actions,
  ...(attributes ? { TransactionAttributes: attributes } : {}),
});

/** The call's arguments, when the event belongs to a voice run's call. */
function argsOf(event: ChimeEvent): (CallArgs & Record<string, string>) | undefined {
  const args = callArguments(event);
  if (!args.organizationId || !args.runId || !args.sessionId || !args.userAudioKey || !args.turn || !args.seq)
    return undefined;
  return args as CallArgs & Record<string, string>;
}

const callIdOf = (event: ChimeEvent) =>
  event.CallDetails.Participants.find((p) => p.ParticipantTag === 'LEG-A')?.CallId ??
  event.CallDetails.Participants[0]?.CallId ??
  '';

function play(callId: string, args: CallArgs): ChimeAction {
  return {
    Type: 'PlayAudio',
    Parameters: {
      CallId: callId,
      ParticipantTag: 'LEG-A',
      AudioSource: { Type: 'S3', BucketName: bucketName, Key: args.userAudioKey },
    },
  };
}

/** How long the head of a barged-in answer is recorded: `headMs` in whole seconds (Chime's unit), within the answer's limit. */
const headSeconds = (headMs: string) => Math.min(answerSeconds(), Math.max(1, Math.ceil(Number(headMs) / 1000)));

/**
 * Records the agent's answer to turn `turn` (0: its greeting) under the session's voice folder: the
 * whole answer, or a barged-in answer's head (`headMs` in the arguments) or its rest.
 */
function record(callId: string, args: CallArgs, turn: string, part: 'whole' | 'rest' = 'whole'): ChimeAction {
  const head = part === 'whole' && turn !== '0' && args.headMs ? headSeconds(args.headMs) : undefined;
  const name = turn === '0' ? 'greeting' : `${turn}-agent${part === 'rest' ? '-rest' : ''}`;
  return {
    Type: 'RecordAudio',
    Parameters: {
      CallId: callId,
      DurationInSeconds: head ?? answerSeconds(),
      SilenceDurationInSeconds: ANSWER_SILENCE_SECONDS,
      SilenceThreshold: DEFAULT_SILENCE_THRESHOLD,
      RecordingTerminators: ['#'],
      RecordingDestination: {
        Type: 'S3',
        BucketName: bucketName,
        Prefix: `${voicePrefix(args.organizationId, args.sessionId)}${name}`,
      },
    },
  };
}

const pause = (callId: string): ChimeAction => ({
  Type: 'Pause',
  Parameters: { CallId: callId, DurationInMilliseconds: PAUSE_MS },
});

async function toSession(args: CallArgs, seq: number, voice: VoiceEvent, transactionId: string): Promise<void> {
  await enqueueRunJobs([
    {
      kind: 'step',
      organizationId: args.organizationId,
      runId: args.runId,
      sessionId: args.sessionId,
      seq,
      voice: { ...voice, transactionId },
    },
  ]);
}

/** The key of a `bucket/key` location (Chime's CallRecordingDestination), when it is in this bucket. */
function keyOfLocation(location: string | undefined): string | undefined {
  if (!location) return undefined;
  const path = location.replace(/^s3:\/\//, '');
  return path.startsWith(`${bucketName}/`) ? path.slice(bucketName.length + 1) : undefined;
}

/** What CALL_ANSWERED needs of the session a call is for. */
export interface SessionCall {
  /** The call the session waits on (written by the one delivery of its step that won), if any yet. */
  transactionId: string | undefined;
  /** The session ended (finished, failed or cancelled): nothing is left to say on a call. */
  ended: boolean;
}

/** The session's call as stored (a consistent read); undefined when there is no such session. */
export async function storedSessionCall(sessionId: string): Promise<SessionCall | undefined> {
  const s = await getRunSession(sessionId);
  if (!s) return undefined;
  return { transactionId: s._call?.transactionId, ended: Boolean(s._end) || s.status !== 'PENDING' };
}

const hangupAction = (): ChimeAction => ({ Type: 'Hangup', Parameters: { SipResponseCode: '0' } });

export async function handleCallEvent(
  event: ChimeEvent,
  sessionCall: (sessionId: string) => Promise<SessionCall | undefined> = storedSessionCall,
): Promise<ChimeResponse> {
  const args = argsOf(event);
  if (!args) {
    logger.warn('call event without a voice run call', { type: event.InvocationEventType });
    return ok(event.InvocationEventType === 'HANGUP' ? [] : [hangupAction()]);
  }
  const callId = callIdOf(event);
  const seq = Number(args.seq);
  const action = event.ActionData;
  switch (event.InvocationEventType) {
    case 'NEW_OUTBOUND_CALL':
    case 'RINGING':
      return ok([], args);
    case 'CALL_ANSWERED': {
      // A call nobody waits on is hung up as it is answered: a second delivery of a step placed it
      // and lost (its own hang-up may have come while the call still rang, when Chime may drop
      // it), or the session ended while it rang. No call is written yet: this may be the winner.
      const current = await sessionCall(args.sessionId);
      const waitedOn = !current?.transactionId || current.transactionId === event.CallDetails.TransactionId;
      if (!current || current.ended || !waitedOn) {
        logger.info('voice call not waited on: hung up as answered', {
          sessionId: args.sessionId,
          transactionId: event.CallDetails.TransactionId,
        });
        return ok([hangupAction()], args);
      }
      // The recording starts alone: Chime reports an action list's success only after its last
      // action, and only StartCallRecording's own report says where the recording will be.
      return ok(
        [
          {
            Type: 'StartCallRecording',
            Parameters: {
              CallId: callId,
              Track: 'BOTH',
              Destination: {
                Type: 'S3',
                Location: `${bucketName}/${voicePrefix(args.organizationId, args.sessionId)}call`,
              },
            },
          },
        ],
        { ...args, answered: '1' },
      );
    }
    case 'ACTION_SUCCESSFUL': {
      if (action?.Type === 'StartCallRecording') {
        const key = keyOfLocation(action.CallRecordingDestination?.Location);
        const attributes = key ? { ...args, recordingKey: key } : args;
        if (args.agentSpeaksFirst === '1' && args.greeted !== '1') return ok([record(callId, args, '0')], attributes);
        return ok([play(callId, args), record(callId, args, args.turn)], attributes);
      }
      if (action?.Type === 'RecordAudio') {
        if (args.agentSpeaksFirst === '1' && args.greeted !== '1') {
          // The greeting is heard, not a turn: the first utterance answers it.
          return ok([play(callId, args), record(callId, args, args.turn)], { ...args, greeted: '1' });
        }
        const key = action.RecordingDestination?.Key;
        if (!key) {
          await toSession(
            args,
            seq,
            { event: 'failed', error: 'RecordAudio reported no recording' },
            event.CallDetails.TransactionId,
          );
          return ok([hangupAction()], args);
        }
        const turn = Number(args.turn);
        const transactionId = event.CallDetails.TransactionId;
        if (args.headMs && !args.headKey) {
          // A barged-in answer's head: the step hears it now (and interrupts the rest with its next
          // utterance); the rest is recorded meanwhile, for a step that heard nothing in the head.
          await toSession(args, seq, { event: 'answer', turn, agentAudioKey: key, head: true }, transactionId);
          return ok([record(callId, args, args.turn, 'rest')], { ...args, headKey: key, heard: args.turn });
        }
        const part = args.headKey ? { headAudioKey: args.headKey } : {};
        await toSession(args, seq, { event: 'answer', turn, agentAudioKey: key, ...part }, transactionId);
        return ok([pause(callId)], { ...args, heard: args.turn });
      }
      if (action?.Type === 'Pause') return ok([pause(callId)], args);
      return ok([], args);
    }
    case 'CALL_UPDATE_REQUESTED': {
      const update = (action?.Parameters?.Arguments ?? {}) as Record<string, string>;
      if (update.action === 'hangup') return ok([hangupAction()], args);
      // The turn the call is already on: a step's redelivery sent its update again. The actions
      // under way (playing, recording or waiting for that turn) go on.
      const on = event.CallDetails.TransactionAttributes ?? {};
      if (update.turn === on.turn && update.seq === on.seq) return ok([], on);
      const next = { ...args, ...update } as CallArgs & Record<string, string>;
      delete next.action;
      // What belonged to the turn before: a head only if this update asks for one.
      if (update.headMs === undefined) delete next.headMs;
      delete next.headKey;
      return ok([play(callId, next), record(callId, next, next.turn)], next);
    }
    case 'HANGUP': {
      const byAgent = action?.Type !== 'Hangup';
      await toSession(
        args,
        seq,
        {
          event: 'hangup',
          answered: args.answered === '1',
          byAgent,
          ...(args.recordingKey ? { recordingKey: args.recordingKey } : {}),
          ...(args.heard ? { heard: Number(args.heard) } : {}),
        },
        event.CallDetails.TransactionId,
      );
      return ok([], args);
    }
    case 'ACTION_FAILED':
    case 'INVALID_LAMBDA_RESPONSE': {
      const what = action?.Type ?? 'an action';
      const why = [action?.ErrorType, action?.ErrorMessage].filter(Boolean).join(': ');
      await toSession(
        args,
        seq,
        { event: 'failed', error: `${what} failed${why ? ` (${why})` : ''}` },
        event.CallDetails.TransactionId,
      );
      return ok([hangupAction()], args);
    }
    default:
      return ok([], args);
  }
}
