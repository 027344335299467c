/**
 * What the call-control handler tells a PHONE session's step job about its call. A step job with
 * a `voice` event records what happened on the call; one without places the session's next
 * utterance. Each is idempotent per (session, turn): Chime may invoke the handler twice, and the
 * run queue may deliver a job twice.
 */
export type VoiceEvent =
  /**
   * The agent's answer to turn `turn` was recorded at `agentAudioKey` (bucket key). A turn whose
   * answer a barge-in interrupts comes in two parts: its `head` (the first `headMs` of the call's
   * arguments), then, should the step wait for it, the rest (with `headAudioKey`, the head's key).
   */
  (
    | { event: 'answer'; turn: number; agentAudioKey: string; head?: true; headAudioKey?: string }
    /** The call ended: `answered` whether it ever was, `byAgent` whether the agent hung up. */
    | {
        event: 'hangup';
        answered: boolean;
        byAgent: boolean;
        recordingKey?: string;
        /** The last turn whose answer went to the session (its step records it, whatever the hang-up). */
        heard?: number;
      }
    /** An action of the call failed (the call is being hung up). */
    | { event: 'failed'; error: string }
    /**
     * Not from the handler: put on the queue by the step that spoke turn `turn` (step `seq`), due
     * at `dueAt` (epoch ms). If the session still waits on that call then, no news of it came (the
     * handler was never invoked again, or could not queue the step): the session fails.
     */
    | { event: 'deadline'; seq: number; turn: number; dueAt: number }
  ) & {
    /** The call the event is about: a session's step heeds only the call it waits on. */
    transactionId?: string;
  };

/** The arguments the service gives a call (strings, as Chime carries them). */
export interface CallArgs {
  organizationId: string;
  runId: string;
  sessionId: string;
  /** The session's step waiting on the call. */
  seq: string;
  /** The turn whose utterance is played next (1-based). */
  turn: string;
  /** Bucket key of that utterance (8 kHz 16-bit mono WAV). */
  userAudioKey: string;
  /** '1' when the agent greets first: its greeting is recorded (not a turn) before the first utterance. */
  agentSpeaksFirst?: string;
  /**
   * A turn whose answer the next utterance interrupts (a barge-in): its answer's head, the first
   * `headMs` ms (in whole seconds, rounded up), goes to the session's step as soon as it is
   * recorded, while the rest of the answer is recorded after it.
   */
  headMs?: string;
}

/** Where a session's voice files live: `orgs/<org>/voice/<session>/`. */
export const voicePrefix = (organizationId: string, sessionId: string) => `orgs/${organizationId}/voice/${sessionId}/`;
