/**
 * The event and action shapes of the Amazon Chime SDK PSTN audio service (SIP media application
 * Lambda invocations), the subset voice runs use. The phone line emulator sends the same events
 * and carries out the same actions.
 */

export type InvocationEventType =
  | 'NEW_OUTBOUND_CALL'
  | 'RINGING'
  | 'CALL_ANSWERED'
  | 'ACTION_SUCCESSFUL'
  | 'ACTION_FAILED'
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

export interface ChimeActionData {
  Type: string;
  Parameters?: Record<string, unknown>;
  /** ACTION_FAILED */
  ErrorType?: string;
  ErrorMessage?: string;
  /** ACTION_SUCCESSFUL of a RecordAudio: where the recording was written. */
  RecordingDestination?: S3Location;
  /** ACTION_SUCCESSFUL of a StartCallRecording: `bucket/key` of the call recording (written when the call ends). */
  CallRecordingDestination?: { Type: 'S3'; Location: string };
}

export interface ChimeEvent {
  SchemaVersion: '1.0';
  Sequence: number;
  InvocationEventType: InvocationEventType;
  /** The action the event reports on; for NEW_OUTBOUND_CALL and CALL_UPDATE_REQUESTED, `Parameters.Arguments`. */
  ActionData?: ChimeActionData;
  CallDetails: {
    TransactionId: string;
    /** What the handler last returned as `TransactionAttributes` (kept for the life of the call). */
    TransactionAttributes?: Record<string, string>;
    AwsAccountId: string;
    AwsRegion: string;
    SipMediaApplicationId: string;
    Participants: ChimeParticipant[];
  };
}

export type ChimeAction =
  | {
      Type: 'PlayAudio';
      Parameters: { CallId: string; ParticipantTag?: 'LEG-A'; AudioSource: S3Location };
    }
  | {
      Type: 'RecordAudio';
      Parameters: {
        CallId: string;
        DurationInSeconds: number;
        SilenceDurationInSeconds: number;
        SilenceThreshold: number;
        RecordingTerminators?: string[];
        RecordingDestination: { Type: 'S3'; BucketName: string; Prefix: string };
      };
    }
  | {
      Type: 'StartCallRecording';
      Parameters: {
        CallId: string;
        Track: 'BOTH' | 'INCOMING' | 'OUTGOING';
        Destination: { Type: 'S3'; Location: string };
      };
    }
  | { Type: 'Pause'; Parameters: { CallId: string; DurationInMilliseconds: number } }
  | { Type: 'Hangup'; Parameters: { CallId?: string; ParticipantTag?: 'LEG-A'; SipResponseCode: string } };

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
