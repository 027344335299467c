/**
 * The event and action shapes of the Amazon Chime SDK PSTN audio service (SIP media application
 * Lambda invocations), the subset voice runs use. The phone line emulator sends the same events
 * and carries out the same actions.
 *
 * An outbound call (CreateSipMediaApplicationCall) invokes the handler with NEW_OUTBOUND_CALL, then
 * RINGING (the answers to both are ignored), then CALL_ANSWERED; a call that is not answered, is
 * busy or fails gets HANGUP instead of CALL_ANSWERED (SipResponseCode 480, 486, …):
 * https://docs.aws.amazon.com/chime-sdk/latest/dg/use-create-call-api.html and
 * https://docs.aws.amazon.com/chime-sdk/latest/dg/pstn-invocations.html. Chime waits 5 s for an
 * answer before it invokes again, and hangs up after 20 s:
 * https://docs.aws.amazon.com/chime-sdk/latest/dg/timeouts.html. NEW_INBOUND_CALL and
 * DIGITS_RECEIVED are left out: no SIP rule routes calls to the service's SIP media application.
 */

export type InvocationEventType =
  | 'NEW_OUTBOUND_CALL'
  | 'RINGING'
  | 'CALL_ANSWERED'
  | 'ACTION_SUCCESSFUL'
  | 'ACTION_FAILED'
  /** An UpdateSipMediaApplicationCall interrupted a running PlayAudio, RecordAudio or Pause; the answer is ignored. */
  | 'ACTION_INTERRUPTED'
  | 'CALL_UPDATE_REQUESTED'
  | 'HANGUP'
  | 'INVALID_LAMBDA_RESPONSE';

export interface ChimeParticipant {
  CallId: string;
  ParticipantTag: 'LEG-A' | 'LEG-B';
  To: string;
  From: string;
  Direction: 'Inbound' | 'Outbound';
  StartTimeInMilliseconds: string;
  Status?: 'Connected' | 'Disconnected';
}

export interface S3Location {
  Type: 'S3';
  BucketName: string;
  Key: string;
}

/**
 * What an event reports on. By event:
 * - NEW_OUTBOUND_CALL: `{Type: 'CallCreateRequest', Parameters: {Arguments}}`, the call's
 *   CreateSipMediaApplicationCall `ArgumentsMap`.
 * - CALL_UPDATE_REQUESTED: `{Type: 'CallUpdateRequest', Parameters: {Arguments}}`, the
 *   UpdateSipMediaApplicationCall `Arguments`.
 * - ACTION_SUCCESSFUL, ACTION_FAILED, ACTION_INTERRUPTED: the action (`Type`, `Parameters`), plus
 *   what its outcome adds below.
 * - HANGUP: `{Type: 'Hangup', Parameters: {CallId, ParticipantTag, SipResponseCode}}`, the leg that
 *   hung up; `SipResponseCode` is a number (0 normal clearing, 480 no answer, 486 busy) and may be
 *   missing when the far end hung up.
 * - CALL_ANSWERED, RINGING: none.
 */
export interface ChimeActionData {
  Type: string;
  Parameters?: Record<string, unknown>;
  /** ACTION_FAILED of most actions (e.g. `InvalidActionParameter`, `InvalidAudioSource`, `SystemException`). */
  ErrorType?: string;
  ErrorMessage?: string;
  /** ACTION_FAILED of a StartCallRecording: one string, e.g. `NoAccessToDestination: Error while accessing destination`. */
  Error?: string;
  /** ACTION_SUCCESSFUL of a RecordAudio: where the recording was written. */
  RecordingDestination?: S3Location;
  /** ACTION_SUCCESSFUL of a RecordAudio stopped by a DTMF terminator: which one (absent after silence or the duration). */
  RecordingTerminatorUsed?: string;
  /**
   * ACTION_SUCCESSFUL of a StartCallRecording: `bucket/key` of the call recording, written when the
   * call ends; the key is `<prefix>/<yyyy>/<mm>/<dd>/<timestamp>_<transactionId>_<callId>.wav`.
   */
  CallRecordingDestination?: { Type: 'S3'; Location: string };
}

export interface ChimeEvent {
  SchemaVersion: '1.0';
  Sequence: number;
  InvocationEventType: InvocationEventType;
  /** The action the event reports on (see ChimeActionData). */
  ActionData?: ChimeActionData;
  /**
   * INVALID_LAMBDA_RESPONSE: why the last answer was refused. The developer guide shows these two
   * fields without saying where they sit; the Chime SMA libraries read them at the event's top level.
   */
  ErrorType?: string;
  ErrorMessage?: string;
  CallDetails: {
    TransactionId: string;
    /**
     * What the handler last returned as `TransactionAttributes` (kept for the life of the call).
     * The call's arguments are not among them unless the handler returned them.
     */
    TransactionAttributes?: Record<string, string>;
    AwsAccountId: string;
    AwsRegion: string;
    /** The reference (pstn-invocations) and logged events name it so; some guide examples say `SipApplicationId`. */
    SipMediaApplicationId: string;
    Participants: ChimeParticipant[];
  };
}

export type ChimeAction =
  | {
      Type: 'PlayAudio';
      /** A WAV file (raw PCM, at most 50 MB; 8 kHz mono recommended) the voice connector principal may read. */
      Parameters: { CallId: string; ParticipantTag?: 'LEG-A'; AudioSource: S3Location };
    }
  | {
      Type: 'RecordAudio';
      Parameters: {
        CallId: string;
        DurationInSeconds: number;
        SilenceDurationInSeconds: number;
        /** 1–1000: 1 a quiet room (30 dB), 100 a whisper (40–50 dB), 200 a crowded office (60 dB), 1000 music (75 dB). */
        SilenceThreshold: number;
        /** Required by Chime: DTMF digits (`0`–`9`, `#`, `*`) that stop the recording. */
        RecordingTerminators: string[];
        RecordingDestination: { Type: 'S3'; BucketName: string; Prefix: string };
      };
    }
  | {
      Type: 'StartCallRecording';
      Parameters: {
        CallId: string;
        /** BOTH records a stereo WAV: the incoming track (the far end) left, the outgoing right. */
        Track: 'BOTH' | 'INCOMING' | 'OUTGOING';
        /** `Location`: the bucket and an optional key prefix, `bucket/prefix`. */
        Destination: { Type: 'S3'; Location: string };
      };
    }
  | { Type: 'Pause'; Parameters: { CallId: string; DurationInMilliseconds: number } }
  | { Type: 'Hangup'; Parameters: { CallId?: string; ParticipantTag?: 'LEG-A'; SipResponseCode: string } };

/** At most 10 actions per answer, and 1,000 invocations per call. */
export interface ChimeResponse {
  SchemaVersion: '1.0';
  Actions: ChimeAction[];
  TransactionAttributes?: Record<string, string>;
}

/** The handler a SIP media application invokes (the call-control Lambda's, or a test's). */
export type CallControlHandler = (event: ChimeEvent) => Promise<ChimeResponse>;

/** The arguments of a call: those of its request on NEW_OUTBOUND_CALL and CALL_UPDATE_REQUESTED, else the transaction's attributes. */
export function callArguments(event: ChimeEvent): Record<string, string> {
  const args = event.ActionData?.Parameters?.Arguments;
  return {
    ...(event.CallDetails.TransactionAttributes ?? {}),
    ...(args && typeof args === 'object' ? (args as Record<string, string>) : {}),
  };
}
