import * as Type from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { Nullable } from './common.js';

/**
 * A call's voice figures as the API answers them (docs/voice.md, "Voice figures"): a session's,
 * from its stereo recording (shared/voice/quality.ts computes them), and a run's spread of them.
 */

const Ms = Type.Number({ minimum: 0 });

/** Each channel keeps at most this many speech segments on the session (the figures use all of them). */
export const MAX_SEGMENTS_PER_CHANNEL = 500;

const Segment = Type.Object(
  { startMs: Ms, endMs: Ms },
  { additionalProperties: false, description: 'a stretch of speech, [startMs, endMs) from the start of the recording' },
);

export const SessionVoice = Type.Object(
  {
    agentSpeechMs: Ms,
    userSpeechMs: Type.Number({ minimum: 0, description: 'the other party: the simulated caller, or the customer' }),
    talkRatio: Nullable(
      Type.Number({ minimum: 0, maximum: 1, description: 'agent / (agent + user) speech; null when neither spoke' }),
    ),
    overlapMs: Type.Number({ minimum: 0, description: 'time both spoke at once' }),
    agentInterruptions: Type.Integer({
      minimum: 0,
      description: 'agent segments that start while a user segment is on and at least 300 ms old',
    }),
    deadAirMs: Type.Number({
      minimum: 0,
      description: 'the sum of the silences of both longer than 3 s, between the first and the last speech',
    }),
    responseLatencyMs: Type.Array(Ms, {
      description:
        'per answer: a test call’s turn latencies; a recording without turns, the end of each user segment to the start of the agent’s next, when it starts before the user speaks again',
    }),
    segments: Type.Object(
      {
        agent: Type.Array(Segment, { maxItems: MAX_SEGMENTS_PER_CHANNEL }),
        user: Type.Array(Segment, { maxItems: MAX_SEGMENTS_PER_CHANNEL }),
        truncated: Type.Boolean({ description: `a channel had more than ${MAX_SEGMENTS_PER_CHANNEL} segments` }),
      },
      {
        additionalProperties: false,
        description: `who spoke when: each channel’s first ${MAX_SEGMENTS_PER_CHANNEL} speech segments`,
      },
    ),
  },
  {
    title: 'SessionVoice',
    additionalProperties: false,
    description:
      'A call’s voice figures from its stereo recording (agent left, user right; 20 ms frames of RMS ≥ 200, gaps under 300 ms merged, segments under 100 ms dropped).',
  },
);
export type SessionVoice = Static<typeof SessionVoice>;

const Spread = (description: string) =>
  Nullable(Type.Object({ p50: Type.Number(), p95: Type.Number() }, { additionalProperties: false, description }));

export const RunVoice = Type.Object(
  {
    responseLatencyMs: Spread('over every answer of every session'),
    agentSpeechMs: Spread('over the sessions'),
    userSpeechMs: Spread('over the sessions'),
    talkRatio: Spread('over the sessions where someone spoke'),
    overlapMs: Spread('over the sessions'),
    agentInterruptions: Spread('over the sessions'),
    deadAirMs: Spread('over the sessions'),
    interruptionRate: Nullable(
      Type.Number({ minimum: 0, maximum: 1, description: 'sessions with an agent interruption / sessions' }),
    ),
    bargeInRecovery: Nullable(
      Type.Object(
        {
          rate: Type.Number({
            minimum: 0,
            maximum: 1,
            description: 'the share of barge-ins the agent stopped talking for within 1,000 ms',
          }),
          p50: Nullable(Type.Number({ minimum: 0 })),
          p95: Nullable(Type.Number({ minimum: 0 })),
        },
        {
          additionalProperties: false,
          description:
            'how the agent stopped when the service barged in (the turns’ `metadata.bargeIn.agentStoppedAfterMs`), once the run has finished: nearest-rank percentiles, an agent that never stopped within 3 s ranking last (null where the rank falls on one); null without barge-ins',
        },
      ),
    ),
  },
  {
    title: 'RunVoice',
    additionalProperties: false,
    description:
      'PHONE runs only: the voice figures of its sessions, the nearest-rank p50 and p95 of each over the sessions that have figures (null when none has), from when the run finishes (a recording analysed later updates them).',
  },
);
export type RunVoice = Static<typeof RunVoice>;
/** The figures computed from the sessions' (the barge-in recovery is computed from the turns). */
export type RunSessionsVoice = Omit<RunVoice, 'bargeInRecovery'>;
