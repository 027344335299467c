import { randomUUID } from 'node:crypto';
import { clock } from '../../shared/domain/common/clock.js';
import { logger } from '../../shared/observability/logger.js';
import type {
  CallControlHandler,
  ChimeAction,
  ChimeActionData,
  ChimeEvent,
  ChimeParticipant,
  InvocationEventType,
  S3Location,
} from '../../shared/telephony/chime-events.js';
import type { NewCall } from '../../shared/telephony/telephony.js';
import {
  concatSamples,
  DEFAULT_SILENCE_THRESHOLD,
  decodeWav,
  encodeStereoWav,
  encodeWav,
  FRAME_MS,
  levelOf,
  muLawFrames,
} from '../../shared/voice/audio.js';
import { decodeMuLaw, dial, type MediaStream, SILENT_FRAME, startFrameClock } from './media-stream.js';
import { checkResponse, type ResponseError } from './phone-response.js';

/**
 * One call on the local phone line, as the Amazon Chime SDK PSTN audio service runs it toward
 * the call-control handler: the events of an outbound call (NEW_OUTBOUND_CALL, RINGING,
 * CALL_ANSWERED, then ACTION_SUCCESSFUL / ACTION_FAILED / ACTION_INTERRUPTED /
 * CALL_UPDATE_REQUESTED / INVALID_LAMBDA_RESPONSE, and HANGUP), one invocation at a time, and the
 * actions voice runs use, carried out on a Media Streams connection to the agent.
 */

export type CallState = 'dialing' | 'connected' | 'ended';

/** Who ended a call: the agent (closed its WebSocket), the handler (Hangup), nobody answered, a handler that failed twice, or the line closing. */
export type EndReason = 'agent' | 'application' | 'no-answer' | 'error' | 'line';

export interface PhoneCallInfo {
  transactionId: string;
  callId: string;
  fromNumber: string;
  toNumber: string;
  arguments: Record<string, string>;
  state: CallState;
  /** Every event the handler was invoked with, in order. */
  events: ChimeEvent[];
  /** The WAV files RecordAudio wrote, in order. */
  recordings: S3Location[];
  /** The call recording, once StartCallRecording ran (written when the call ends). */
  callRecording?: S3Location;
  endedBy?: EndReason;
}

export interface CallEnvironment {
  handler: CallControlHandler;
  readObject(bucket: string, key: string): Promise<Uint8Array>;
  writeObject(bucket: string, key: string, bytes: Uint8Array): Promise<void>;
  now(): Date;
  accountSid: string;
}

/** An event as the line sends it: INVALID_LAMBDA_RESPONSE carries its error at the top level. */
type LineEvent = ChimeEvent & { ErrorType?: string; ErrorMessage?: string };

/** How a response's actions are taken: not at all, after the action under way, or at once (an update interrupts). */
type ResponseMode = 'ignore' | 'next' | 'update';

type Outcome =
  | { kind: 'success'; data: ChimeActionData }
  | { kind: 'failed'; errorType: string; errorMessage: string }
  | { kind: 'interrupted' }
  | { kind: 'ended' };

type AbortReason = 'interrupted' | EndReason;

/** Actions an update stops at once; the others finish first. */
const INTERRUPTIBLE = new Set(['PlayAudio', 'RecordAudio', 'Pause']);
const ACCOUNT_ID = '000000000000';
const SIP_MEDIA_APPLICATION_ID = 'local-phone-line';
const REGION = process.env.AWS_REGION || 'us-east-1';
/** Where Chime puts a call recording whose Location names only a bucket. */
const DEFAULT_RECORDING_PREFIX = 'Amazon-Chime-SMA-Call-Recordings';

const failed = (errorType: string, errorMessage: string): Outcome => ({ kind: 'failed', errorType, errorMessage });
const invalidParameter = (message: string) => failed('InvalidActionParameter', message);

/** A number as the actions' parameters give them: a number or a numeric string; NaN otherwise. */
function numberOf(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && value.trim() !== '') return Number(value);
  return Number.NaN;
}

const nonEmpty = (value: unknown): value is string => typeof value === 'string' && value.length > 0;

/** `2019-03-01-17-10-00-010`: how Chime stamps a recording's name (UTC). */
function recordingStamp(at: Date): string {
  const iso = at.toISOString();
  return `${iso.slice(0, 10)}-${iso.slice(11, 13)}-${iso.slice(14, 16)}-${iso.slice(17, 19)}-${iso.slice(20, 23)}`;
}

/** What the agent said during a RecordAudio, frame by frame, and when it has said enough. */
class AudioRecorder {
  private readonly frames: Int16Array[] = [];
  private heardSpeech = false;
  private silentFrames = 0;
  /** The line's position of the first frame recorded. */
  private first: number | undefined;
  private ended = false;
  onDone: (() => void) | undefined;

  constructor(
    private readonly maxFrames: number | undefined,
    private readonly silenceFrames: number | undefined,
    private readonly threshold: number,
  ) {}

  push(samples: Int16Array, position: number): void {
    // Ticks caught up at once after a late timer may come before the recording's owner hears it ended.
    if (this.ended) return;
    this.first ??= position;
    this.frames.push(samples);
    if (levelOf(samples) > this.threshold) {
      this.heardSpeech = true;
      this.silentFrames = 0;
    } else if (this.heardSpeech) this.silentFrames++;
    this.check();
  }

  /** A frame that arrived after its position was recorded (as silence) takes its place. */
  patch(position: number, samples: Int16Array): void {
    const index = position - (this.first ?? position + 1);
    if (index < 0 || index >= this.frames.length) return;
    this.frames[index] = samples;
    if (levelOf(samples) <= this.threshold) return;
    const after = this.frames.length - 1 - index;
    this.silentFrames = this.heardSpeech ? Math.min(this.silentFrames, after) : after;
    this.heardSpeech = true;
  }

  private check(): void {
    const full = this.maxFrames !== undefined && this.frames.length >= this.maxFrames;
    const quiet = this.silenceFrames !== undefined && this.heardSpeech && this.silentFrames >= this.silenceFrames;
    if (!full && !quiet) return;
    this.ended = true;
    this.onDone?.();
  }

  samples(): Int16Array {
    return concatSamples(this.frames);
  }
}

export class PhoneCall {
  readonly transactionId = randomUUID();
  readonly callId = randomUUID();
  private readonly callSid = `CA${randomUUID().replaceAll('-', '')}`;
  private readonly startedAt: Date;
  private state: CallState = 'dialing';
  private sequence = 0;
  private attributes: Record<string, string> | undefined;
  /** The handler's invocations, one after another. */
  private invocations: Promise<void> = Promise.resolve();
  private running: Promise<void> = Promise.resolve();
  private runner: Promise<void> = Promise.resolve();
  private ending: Promise<void> | undefined;
  /** The actions still to run, in order. */
  private actions: ChimeAction[] = [];
  private current: { action: ChimeAction; controller: AbortController } | undefined;
  private wake: (() => void) | undefined;
  private readonly lineClosed = new AbortController();
  /** Aborted by a Hangup the handler answers while the call still rings (its parameters the reason): the dial stops. */
  private readonly hungUpRinging = new AbortController();
  private stream: MediaStream | undefined;
  private frameClock: { stop(): void } | undefined;
  private playing: { frames: Uint8Array[]; next: number; done: () => void } | undefined;
  private recorder: AudioRecorder | undefined;
  private recording:
    | {
        location: S3Location;
        track: 'BOTH' | 'INCOMING' | 'OUTGOING';
        agent: Int16Array[];
        line: Int16Array[];
        /** The line's position of the first frame recorded. */
        first?: number;
      }
    | undefined;
  private readonly info: PhoneCallInfo;

  constructor(
    private readonly env: CallEnvironment,
    private readonly call: NewCall,
    private readonly agentUrl: string | undefined,
  ) {
    this.startedAt = env.now();
    this.info = {
      transactionId: this.transactionId,
      callId: this.callId,
      fromNumber: call.fromNumber,
      toNumber: call.toNumber,
      arguments: { ...call.arguments },
      state: 'dialing',
      events: [],
      recordings: [],
    };
  }

  get ended(): boolean {
    return this.state === 'ended';
  }

  snapshot(): PhoneCallInfo {
    return structuredClone({ ...this.info, state: this.state });
  }

  /** Places the call: NEW_OUTBOUND_CALL, then dialing; answered, RINGING and CALL_ANSWERED; else HANGUP. */
  start(answerTimeoutMs: number): void {
    this.running = this.place(answerTimeoutMs).catch((error: unknown) => {
      logger.warn('phone line: the call failed', { transactionId: this.transactionId, error: String(error) });
      return this.end('error');
    });
  }

  /** UpdateSipMediaApplicationCall: a CALL_UPDATE_REQUESTED, whose actions replace those under way. */
  update(args: Record<string, string>): void {
    this.invoke(
      'CALL_UPDATE_REQUESTED',
      { Type: 'CallUpdateRequest', Parameters: { Arguments: { ...args } } },
      'update',
    );
  }

  /** The line closes: the call ends without telling the handler; resolves once nothing of it runs. */
  async close(): Promise<void> {
    this.lineClosed.abort();
    await this.running;
    await this.end('line');
    let pending: Promise<void>;
    do {
      pending = this.invocations;
      await pending;
    } while (pending !== this.invocations);
  }

  private async place(answerTimeoutMs: number): Promise<void> {
    this.invoke(
      'NEW_OUTBOUND_CALL',
      { Type: 'CallCreateRequest', Parameters: { Arguments: { ...this.call.arguments } } },
      'ignore',
    );
    if (!this.agentUrl) {
      logger.debug('phone line: no agent answers this number', { toNumber: this.call.toNumber });
      return this.end('no-answer');
    }
    const timeout = clock.timeout(answerTimeoutMs);
    const answer = await dial(
      this.agentUrl,
      { accountSid: this.env.accountSid, callSid: this.callSid },
      AbortSignal.any([timeout.signal, this.lineClosed.signal, this.hungUpRinging.signal]),
    );
    timeout.clear();
    // Answered just as the line closed or the handler hung up: the stream closes unstarted.
    if (!('unanswered' in answer)) this.stream = answer;
    if (this.lineClosed.signal.aborted) return this.end('line');
    if (this.hungUpRinging.signal.aborted) return this.end('application', this.hungUpRinging.signal.reason);
    if ('unanswered' in answer) {
      logger.debug('phone line: not answered', { transactionId: this.transactionId, reason: answer.unanswered });
      return this.end('no-answer');
    }
    this.state = 'connected';
    answer.onHangup = () => void this.end('agent');
    answer.onLate = (position, samples) => this.late(position, samples);
    const parameters: Record<string, string> = {};
    for (const name of ['sessionId', 'runId']) {
      const value = this.call.arguments[name];
      if (value !== undefined) parameters[name] = value;
    }
    answer.start(parameters);
    this.frameClock = startFrameClock(() => this.tick());
    this.invoke('RINGING', undefined, 'ignore');
    this.invoke('CALL_ANSWERED', undefined, 'next');
    this.runner = this.runActions();
  }

  /** One 20 ms step: the next frame of the audio being played (or silence) out, the agent's frame in, both recorded. */
  private tick(): void {
    const stream = this.stream;
    if (!stream) return;
    let out = SILENT_FRAME;
    const playing = this.playing;
    if (playing) {
      out = playing.frames[playing.next++]!;
      if (playing.next >= playing.frames.length) {
        this.playing = undefined;
        playing.done();
      }
    }
    const heard = stream.exchange(out);
    if (!this.recording && !this.recorder) return;
    const agent = decodeMuLaw(heard);
    if (this.recording) {
      this.recording.first ??= stream.position;
      this.recording.agent.push(agent);
      this.recording.line.push(decodeMuLaw(out));
    }
    this.recorder?.push(agent, stream.position);
  }

  /** The agent's frame that arrived after its position had played: the recordings take it where it belongs. */
  private late(position: number, samples: Int16Array): void {
    const recording = this.recording;
    if (recording?.first !== undefined) {
      const index = position - recording.first;
      if (index >= 0 && index < recording.agent.length) recording.agent[index] = samples;
    }
    this.recorder?.patch(position, samples);
  }

  private async runActions(): Promise<void> {
    for (;;) {
      if (this.state !== 'connected') return;
      const action = this.actions.shift();
      if (!action) {
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = undefined;
        continue;
      }
      if (action.Type === 'Hangup') {
        const wrongLeg = this.wrongLeg(action.Parameters);
        if (!wrongLeg) {
          void this.end('application', {
            ...action.Parameters,
            CallId: this.callId,
            ParticipantTag: 'LEG-A',
            SipResponseCode: action.Parameters.SipResponseCode ?? '0',
          });
          return;
        }
        this.actions = [];
        this.invoke('ACTION_FAILED', this.failure(action, wrongLeg), 'next');
        continue;
      }
      const controller = new AbortController();
      this.current = { action, controller };
      const outcome = await this.perform(action, controller.signal);
      this.current = undefined;
      const connected = this.state === 'connected';
      if (outcome.kind === 'success') {
        // Chime reports the last action of a list; and a recording the agent hung up on is still delivered.
        if (connected ? this.actions.length === 0 : action.Type === 'RecordAudio')
          this.invoke('ACTION_SUCCESSFUL', outcome.data, 'next');
      } else if (outcome.kind === 'failed' && connected) {
        this.actions = [];
        this.invoke('ACTION_FAILED', this.failure(action, outcome), 'next');
      } else if (outcome.kind === 'interrupted' && connected) {
        this.invoke('ACTION_INTERRUPTED', { Type: action.Type, Parameters: { ...action.Parameters } }, 'ignore');
      }
    }
  }

  /**
   * A response while the call still rings (to an update): a Hangup addressed to the call stops the
   * dial, and the call ends as one the application hung up (HANGUP follows). Chime starts other
   * actions only once the call is answered, so they are not kept.
   */
  private applyRinging(actions: ChimeAction[] | undefined): void {
    const hangup = actions?.[0];
    if (hangup?.Type !== 'Hangup' || this.wrongLeg(hangup.Parameters)) return;
    this.hungUpRinging.abort({
      ...hangup.Parameters,
      CallId: this.callId,
      ParticipantTag: 'LEG-A',
      SipResponseCode: hangup.Parameters.SipResponseCode ?? '0',
    });
  }

  /** ACTION_FAILED's data: the action, with what went wrong. */
  private failure(action: ChimeAction, error: { errorType: string; errorMessage: string }): ChimeActionData {
    return {
      Type: action.Type,
      Parameters: { ...action.Parameters },
      ErrorType: error.errorType,
      ErrorMessage: error.errorMessage,
    };
  }

  /** An action's CallId or ParticipantTag naming a leg this call does not have. */
  private wrongLeg(parameters: { CallId?: string; ParticipantTag?: string } | undefined) {
    const callId = parameters?.CallId;
    const tag = parameters?.ParticipantTag;
    if ((callId === undefined || callId === this.callId) && (tag === undefined || tag === 'LEG-A')) return undefined;
    return {
      errorType: 'InvalidActionParameter',
      errorMessage: 'CallId or ParticipantTag parameter for action is invalid.',
    };
  }

  private perform(action: ChimeAction, signal: AbortSignal): Promise<Outcome> {
    const wrongLeg = this.wrongLeg(action.Parameters as { CallId?: string; ParticipantTag?: string });
    if (wrongLeg) return Promise.resolve({ kind: 'failed', ...wrongLeg });
    switch (action.Type) {
      case 'PlayAudio':
        return this.playAudio(action, signal);
      case 'RecordAudio':
        return this.recordAudio(action, signal);
      case 'StartCallRecording':
        return Promise.resolve(this.startCallRecording(action));
      case 'Pause':
        return this.pause(action, signal);
      default:
        return Promise.resolve(failed('SystemException', 'System error while running the action.'));
    }
  }

  private stopped(signal: AbortSignal): Outcome {
    return (signal.reason as AbortReason) === 'interrupted' ? { kind: 'interrupted' } : { kind: 'ended' };
  }

  private async playAudio(action: Extract<ChimeAction, { Type: 'PlayAudio' }>, signal: AbortSignal): Promise<Outcome> {
    const parameters = action.Parameters as typeof action.Parameters & { Repeat?: unknown };
    const source = parameters.AudioSource;
    if (source?.Type !== 'S3' || !nonEmpty(source.BucketName) || !nonEmpty(source.Key))
      return failed('InvalidAudioSource', 'Audio Source parameter value is invalid.');
    const repeat = parameters.Repeat === undefined ? 1 : numberOf(parameters.Repeat);
    if (!Number.isInteger(repeat) || repeat < 1) return invalidParameter('Repeat parameter value is invalid.');
    let frames: Uint8Array[];
    try {
      frames = muLawFrames(decodeWav(await this.env.readObject(source.BucketName, source.Key)));
    } catch (error) {
      logger.warn('phone line: PlayAudio could not read its audio', {
        transactionId: this.transactionId,
        bucket: source.BucketName,
        key: source.Key,
        error: (error as Error).message,
      });
      return failed('InvalidAudioSource', 'Audio Source parameter value is invalid.');
    }
    if (signal.aborted) return this.stopped(signal);
    const all = Array.from({ length: repeat }, () => frames).flat();
    if (all.length > 0)
      await new Promise<void>((resolve) => {
        this.playing = { frames: all, next: 0, done: resolve };
        signal.addEventListener(
          'abort',
          () => {
            if (this.playing?.done === resolve) this.playing = undefined;
            resolve();
          },
          { once: true },
        );
      });
    if (signal.aborted) return this.stopped(signal);
    return { kind: 'success', data: { Type: 'PlayAudio', Parameters: { ...parameters } } };
  }

  private async recordAudio(
    action: Extract<ChimeAction, { Type: 'RecordAudio' }>,
    signal: AbortSignal,
  ): Promise<Outcome> {
    const parameters = action.Parameters;
    const destination = parameters.RecordingDestination;
    if (destination?.Type !== 'S3' || !nonEmpty(destination.BucketName))
      return invalidParameter('RecordingDestination parameter value is invalid.');
    const duration = parameters.DurationInSeconds === undefined ? undefined : numberOf(parameters.DurationInSeconds);
    if (duration !== undefined && !(duration > 0))
      return invalidParameter('DurationInSeconds parameter value is invalid.');
    const silence =
      parameters.SilenceDurationInSeconds === undefined ? undefined : numberOf(parameters.SilenceDurationInSeconds);
    if (silence !== undefined && !(silence >= 1 && silence <= 1000))
      return invalidParameter('SilenceDurationInSeconds parameter value is invalid.');
    const threshold =
      parameters.SilenceThreshold === undefined ? DEFAULT_SILENCE_THRESHOLD : numberOf(parameters.SilenceThreshold);
    if (!(threshold >= 1 && threshold <= 1000)) return invalidParameter('SilenceThreshold parameter value is invalid.');

    const startedAt = this.env.now();
    const recorder = new AudioRecorder(
      duration === undefined ? undefined : Math.ceil((duration * 1000) / FRAME_MS),
      silence === undefined ? undefined : Math.ceil((silence * 1000) / FRAME_MS),
      threshold,
    );
    this.recorder = recorder;
    await new Promise<void>((resolve) => {
      recorder.onDone = resolve;
      signal.addEventListener('abort', () => resolve(), { once: true });
    });
    if (this.recorder === recorder) this.recorder = undefined;
    // The agent hanging up ends the recording; anything else that stops it discards it.
    if (signal.aborted && signal.reason !== 'agent') return this.stopped(signal);

    // Numbered too: two recordings of a call may start in the same millisecond under a test's clock.
    const prefix = destination.Prefix ?? '';
    const name = `${recordingStamp(startedAt)}_${this.transactionId}_${this.info.recordings.length + 1}.wav`;
    const key = `${prefix}${prefix === '' || prefix.endsWith('/') ? '' : '/'}${name}`;
    try {
      await this.env.writeObject(destination.BucketName, key, encodeWav(recorder.samples()));
    } catch (error) {
      logger.warn('phone line: RecordAudio could not write its recording', {
        transactionId: this.transactionId,
        error: (error as Error).message,
      });
      return invalidParameter('Error occurred while uploading recording to S3 bucket.');
    }
    const location: S3Location = { Type: 'S3', BucketName: destination.BucketName, Key: key };
    this.info.recordings.push(location);
    return {
      kind: 'success',
      data: { Type: 'RecordAudio', Parameters: { ...parameters }, RecordingDestination: location },
    };
  }

  private startCallRecording(action: Extract<ChimeAction, { Type: 'StartCallRecording' }>): Outcome {
    const { Track: track, Destination: destination } = action.Parameters;
    if (track !== 'BOTH' && track !== 'INCOMING' && track !== 'OUTGOING')
      return invalidParameter('Track parameter value is invalid.');
    if (destination?.Type !== 'S3' || !nonEmpty(destination.Location))
      return invalidParameter('Destination parameter value is invalid.');
    if (this.recording) return invalidParameter('The call is already being recorded.');
    const [bucket, ...rest] = destination.Location.split('/');
    if (!bucket) return invalidParameter('Destination parameter value is invalid.');
    const prefix = rest.join('/').replace(/\/+$/, '') || DEFAULT_RECORDING_PREFIX;
    const day = this.startedAt.toISOString().slice(0, 10).replaceAll('-', '/');
    const key = `${prefix}/${day}/${recordingStamp(this.startedAt)}_${this.transactionId}_${this.callId}.wav`;
    const location: S3Location = { Type: 'S3', BucketName: bucket, Key: key };
    this.recording = { location, track, agent: [], line: [] };
    this.info.callRecording = location;
    return {
      kind: 'success',
      data: {
        Type: 'StartCallRecording',
        Parameters: { ...action.Parameters },
        CallRecordingDestination: { Type: 'S3', Location: `${bucket}/${key}` },
      },
    };
  }

  private async pause(action: Extract<ChimeAction, { Type: 'Pause' }>, signal: AbortSignal): Promise<Outcome> {
    const ms = numberOf(action.Parameters.DurationInMilliseconds);
    if (!(ms > 0)) return invalidParameter('DurationInMilliseconds parameter value is invalid.');
    try {
      await clock.sleep(ms, signal);
    } catch {
      return this.stopped(signal);
    }
    return { kind: 'success', data: { Type: 'Pause', Parameters: { ...action.Parameters } } };
  }

  /**
   * Ends the call once: the line stops (the agent gets `stop` unless it hung up), the action
   * under way stops, the call recording is written, and the handler gets HANGUP (not when the
   * line itself closes).
   */
  private end(reason: EndReason, hangup: Record<string, unknown> = {}): Promise<void> {
    this.ending ??= (async () => {
      this.state = 'ended';
      this.info.endedBy = reason;
      this.frameClock?.stop();
      this.current?.controller.abort(reason);
      this.wake?.();
      if (reason !== 'agent') this.stream?.stop();
      await this.runner;
      await this.writeCallRecording();
      logger.debug('phone line: call ended', { transactionId: this.transactionId, endedBy: reason });
      if (reason === 'line') return;
      this.invoke(
        'HANGUP',
        {
          Type: 'Hangup',
          Parameters: {
            SipResponseCode: reason === 'no-answer' ? '480' : '0',
            ...hangup,
            CallId: this.callId,
            ParticipantTag: 'LEG-A',
          },
        },
        'ignore',
      );
    })();
    return this.ending;
  }

  private async writeCallRecording(): Promise<void> {
    const recording = this.recording;
    if (!recording) return;
    this.recording = undefined;
    const agent = concatSamples(recording.agent);
    const line = concatSamples(recording.line);
    // Chime's stereo recording: the incoming track (the agent) left, the outgoing one (ours) right.
    const wav =
      recording.track === 'BOTH'
        ? encodeStereoWav(agent, line)
        : encodeWav(recording.track === 'INCOMING' ? agent : line);
    try {
      await this.env.writeObject(recording.location.BucketName, recording.location.Key, wav);
    } catch (error) {
      logger.warn('phone line: the call recording could not be written', {
        transactionId: this.transactionId,
        error: (error as Error).message,
      });
    }
  }

  /** Queues an invocation of the handler; the invocations of a call never overlap. */
  private invoke(type: InvocationEventType, actionData: ChimeActionData | undefined, mode: ResponseMode): void {
    this.invocations = this.invocations.then(() => this.deliver(type, actionData, mode));
  }

  private async deliver(type: InvocationEventType, actionData: ChimeActionData | undefined, mode: ResponseMode) {
    const answer = await this.callHandler(type, actionData);
    if (mode === 'ignore') return;
    if ('error' in answer) {
      // Chime tells the handler its response was unusable and takes the actions it answers then.
      const retry = await this.callHandler('INVALID_LAMBDA_RESPONSE', undefined, answer.error);
      if ('error' in retry) {
        void this.end('error');
        return;
      }
      return this.apply(retry.actions, mode);
    }
    this.apply(answer.actions, mode);
  }

  private async callHandler(
    type: InvocationEventType,
    actionData: ChimeActionData | undefined,
    error?: ResponseError,
  ): Promise<{ actions: ChimeAction[] | undefined } | { error: ResponseError }> {
    const event: LineEvent = {
      SchemaVersion: '1.0',
      Sequence: ++this.sequence,
      InvocationEventType: type,
      ...(actionData ? { ActionData: actionData } : {}),
      CallDetails: {
        TransactionId: this.transactionId,
        ...(this.attributes ? { TransactionAttributes: { ...this.attributes } } : {}),
        AwsAccountId: ACCOUNT_ID,
        AwsRegion: REGION,
        SipMediaApplicationId: SIP_MEDIA_APPLICATION_ID,
        Participants: [this.participant()],
      },
      ...(error ? { ErrorType: error.type, ErrorMessage: error.message } : {}),
    };
    this.info.events.push(structuredClone(event));
    logger.debug('phone line: invoking the handler', {
      transactionId: this.transactionId,
      sequence: event.Sequence,
      event: type,
      action: actionData?.Type,
    });
    let response: unknown;
    try {
      response = await this.env.handler(structuredClone(event));
    } catch (thrown) {
      logger.warn('phone line: the handler failed', {
        transactionId: this.transactionId,
        event: type,
        error: String((thrown as Error)?.message ?? thrown),
      });
      return { error: { type: 'LambdaFunctionError', message: 'The Lambda function failed.' } };
    }
    const checked = checkResponse(response);
    if ('error' in checked) {
      logger.warn('phone line: the handler answered an invalid response', {
        transactionId: this.transactionId,
        event: type,
        error: checked.error.message,
      });
      return checked;
    }
    if (checked.attributes) this.attributes = Object.keys(checked.attributes).length ? checked.attributes : undefined;
    return { actions: checked.actions };
  }

  private participant(): ChimeParticipant {
    return {
      CallId: this.callId,
      ParticipantTag: 'LEG-A',
      To: this.call.toNumber,
      From: this.call.fromNumber,
      Direction: 'Outbound',
      StartTimeInMilliseconds: String(this.startedAt.getTime()),
      ...(this.state === 'connected' ? { Status: 'Connected' as const } : {}),
      ...(this.state === 'ended' ? { Status: 'Disconnected' as const } : {}),
    };
  }

  /**
   * A response's actions: `next` replaces those not started yet (the one under way finishes, as
   * Chime does with any action list); `update` also stops an interruptible action at once.
   * No action list (null or absent) keeps the actions; an update's empty list too.
   */
  private apply(actions: ChimeAction[] | undefined, mode: 'next' | 'update'): void {
    if (this.state === 'dialing') {
      this.applyRinging(actions);
      return;
    }
    if (this.state !== 'connected') return;
    if (actions === undefined || (mode === 'update' && actions.length === 0)) return;
    this.actions = [...actions];
    const current = this.current;
    if (mode === 'update' && current && INTERRUPTIBLE.has(current.action.Type))
      current.controller.abort('interrupted' satisfies AbortReason);
    this.wake?.();
  }
}
