import * as Type from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { DateTime, FreeForm, Id, IdList, ListQueryBase, Metadata, Nullable, StringEnum, StringList } from './common.js';
import { FreeObject, Int, S, Strings, deletedAt, record } from './answers.js';
import { SessionVoice } from './voice.js';

export const SESSION_STATUSES = ['PENDING', 'COMPLETED', 'FAILED'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];
export const SPAN_TYPES = [
  'SPAN',
  'GENERATION',
  'EVENT',
  'AGENT',
  'TOOL',
  'CHAIN',
  'RETRIEVER',
  'EVALUATOR',
  'EMBEDDING',
  'GUARDRAIL',
] as const;
export type SpanType = (typeof SPAN_TYPES)[number];
export const EVALUATION_STATUSES = ['PENDING', 'PENDING_HUMAN', 'SUCCESS', 'FAILED', 'SKIPPED'] as const;
export type EvaluationStatus = (typeof EVALUATION_STATUSES)[number];

export const MAX_TURN_TEXT = 250_000;
const MAX_CONTEXT = 100_000;
/** 100,000 characters up to 128 KB of UTF-8, or an object of 64 KB: the worst-case session item stays under 350 KB. */
const Context = Type.Union([
  Type.String({ maxLength: MAX_CONTEXT, maxBytes: 128 * 1024 }),
  FreeForm({ maxBytes: 64 * 1024 }),
]);
const CustomId = Type.String({ minLength: 1, maxLength: 200 });
const RecordingUri = Type.String({
  minLength: 1,
  maxLength: 4096,
  description:
    'the call’s stereo recording (WAV, the agent left, the user right, 8 or 16 kHz, up to 2 hours), uploaded to this service’s storage: its voice figures are computed from it. A URI elsewhere is kept as a link, without figures',
});

export const SessionCreate = Type.Object(
  {
    versionId: Id,
    testCaseId: Type.Optional(Nullable(Id)),
    customId: Type.Optional(Nullable(CustomId)),
    context: Type.Optional(Nullable(Context)),
    metadata: Type.Optional(Metadata),
    recordingUri: Type.Optional(Nullable(RecordingUri)),
  },
  { additionalProperties: false },
);
export type SessionCreate = Static<typeof SessionCreate>;

export const SessionUpdate = Type.Object(
  {
    status: Type.Optional(StringEnum(['COMPLETED', 'FAILED'] as const)),
    error: Type.Optional(Nullable(Type.String({ maxLength: 10_000 }))),
    stoppingReason: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 1000 }))),
    metadata: Type.Optional(Metadata),
    context: Type.Optional(Nullable(Context)),
    customId: Type.Optional(Nullable(CustomId)),
    recordingUri: Type.Optional(Nullable(RecordingUri)),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type SessionUpdate = Static<typeof SessionUpdate>;

export const SessionListQuery = Type.Object(
  {
    ...ListQueryBase,
    versionIds: Type.Optional(IdList),
    testIds: Type.Optional(IdList),
    testCaseIds: Type.Optional(IdList),
    customIds: Type.Optional(StringList),
    runIds: Type.Optional(Type.Array(Id, { maxItems: 20 })),
    isProduction: Type.Optional(Type.Boolean()),
    statuses: Type.Optional(Type.Array(StringEnum(SESSION_STATUSES), { maxItems: 3 })),
  },
  { additionalProperties: false },
);
export type SessionListQuery = Static<typeof SessionListQuery>;

const Usage = Type.Object(
  {
    inputTokens: Type.Optional(Type.Integer({ minimum: 0 })),
    outputTokens: Type.Optional(Type.Integer({ minimum: 0 })),
    cacheReadInputTokens: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  { additionalProperties: false },
);
const RetrievalContext = Type.Array(Type.String({ maxLength: MAX_TURN_TEXT }), { maxItems: 200 });

export const TurnCreate = Type.Object(
  {
    sessionId: Id,
    input: Type.String({ maxLength: MAX_TURN_TEXT }),
    output: Type.Optional(Nullable(Type.String({ maxLength: MAX_TURN_TEXT }))),
    retrievalContext: Type.Optional(RetrievalContext),
    latencyMs: Type.Optional(Nullable(Type.Number({ minimum: 0 }))),
    usage: Type.Optional(Usage),
    cost: Type.Optional(Nullable(Type.Number({ minimum: 0 }))),
  },
  { additionalProperties: false },
);
export type TurnCreate = Static<typeof TurnCreate>;

export const TurnBatch = Type.Object(
  {
    sessionId: Id,
    messages: Type.Array(
      Type.Object(
        {
          role: StringEnum(['user', 'assistant'] as const),
          content: Type.String({ maxLength: MAX_TURN_TEXT }),
          retrievalContext: Type.Optional(RetrievalContext),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 200 },
    ),
  },
  { additionalProperties: false },
);
export type TurnBatch = Static<typeof TurnBatch>;

export const TurnUpdate = Type.Object(
  {
    output: Type.Optional(Nullable(Type.String({ maxLength: MAX_TURN_TEXT }))),
    retrievalContext: Type.Optional(RetrievalContext),
    latencyMs: Type.Optional(Nullable(Type.Number({ minimum: 0 }))),
    usage: Type.Optional(Usage),
    cost: Type.Optional(Nullable(Type.Number({ minimum: 0 }))),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type TurnUpdate = Static<typeof TurnUpdate>;

export const TurnListQuery = Type.Object(
  {
    sessionIds: Type.Array(Id, { minItems: 1, maxItems: 50 }),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    offset: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  { additionalProperties: false },
);
export type TurnListQuery = Static<typeof TurnListQuery>;

export const MAX_DESCRIPTION_BYTES = 1024 * 1024;
/** Span data over 64 KB is kept in S3 (spans.ts), so the field allows as much as a description. */
const SpanData = FreeForm({ maxBytes: MAX_DESCRIPTION_BYTES });

export const SpanCreate = Type.Object(
  {
    id: Type.Optional(
      Type.String({ pattern: '^trace_[A-Za-z0-9_-]{1,100}$', description: "an id starting with 'trace_'" }),
    ),
    inferenceResultId: Id,
    name: Type.String({ minLength: 1, maxLength: 500 }),
    type: StringEnum(SPAN_TYPES),
    description: Type.Optional(Nullable(Type.String())),
    inputData: Type.Optional(Nullable(SpanData)),
    outputData: Type.Optional(Nullable(Type.Union([SpanData, Type.String()]))),
    error: Type.Optional(Nullable(Type.String({ maxLength: 100_000 }))),
    latencyMs: Type.Optional(Nullable(Type.Number({ minimum: 0 }))),
    metadata: Type.Optional(Metadata),
    parentTraceId: Type.Optional(
      Nullable(Type.String({ pattern: '^trace_', description: "a span id (starting with 'trace_')" })),
    ),
    startTime: Type.Optional(Nullable(DateTime)),
    endTime: Type.Optional(Nullable(DateTime)),
  },
  { additionalProperties: false },
);
export type SpanCreate = Static<typeof SpanCreate>;

export const SpanBatch = Type.Object(
  { spans: Type.Array(SpanCreate, { minItems: 1, maxItems: 100 }) },
  { additionalProperties: false },
);
export type SpanBatch = Static<typeof SpanBatch>;

/** A span's path: any id is accepted here, one that does not start with trace_ is a 404, not a 400. */
export const SpanIdParams = Type.Object(
  { id: Type.String({ minLength: 1, maxLength: 200 }) },
  { additionalProperties: false },
);

export const SpanListQuery = Type.Object(
  {
    inferenceResultIds: Type.Optional(IdList),
    sessionIds: Type.Optional(IdList),
    types: Type.Optional(Type.Array(StringEnum(SPAN_TYPES), { maxItems: 10 })),
    names: Type.Optional(StringList),
    fromStartTime: Type.Optional(DateTime),
    toStartTime: Type.Optional(DateTime),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    offset: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  { additionalProperties: false },
);
export type SpanListQuery = Static<typeof SpanListQuery>;

export const EvaluationCreate = Type.Object(
  {
    sessionId: Id,
    metricIds: Type.Array(Id, { minItems: 1, maxItems: 50, uniqueItems: true }),
    inferenceResultId: Type.Optional(Nullable(Id)),
    scores: Type.Optional(
      Type.Array(
        Type.Object(
          {
            metricId: Id,
            score: Type.Number({ minimum: 0, maximum: 1 }),
            reason: Type.Optional(Nullable(Type.String({ maxLength: 10_000 }))),
          },
          { additionalProperties: false },
        ),
        { maxItems: 50 },
      ),
    ),
  },
  { additionalProperties: false },
);
export type EvaluationCreate = Static<typeof EvaluationCreate>;

export const EvaluationUpdate = Type.Object(
  {
    humanScore: Type.Number({ minimum: 0, maximum: 1 }),
    humanReason: Type.Optional(Nullable(Type.String({ maxLength: 10_000 }))),
  },
  { additionalProperties: false },
);
export type EvaluationUpdate = Static<typeof EvaluationUpdate>;

export const EvaluationListQuery = Type.Object(
  {
    sessionIds: Type.Array(Id, { minItems: 1, maxItems: 50 }),
    metricIds: Type.Optional(IdList),
    statuses: Type.Optional(Type.Array(StringEnum(EVALUATION_STATUSES), { maxItems: 5 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    offset: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  { additionalProperties: false },
);
export type EvaluationListQuery = Static<typeof EvaluationListQuery>;

/** An evaluation as stored and answered (GET, list, create, update, retry). */
export const EvaluationRecord = Type.Object(
  {
    id: Id,
    organizationId: Id,
    sessionId: Id,
    inferenceResultId: Nullable(Id),
    metricId: Id,
    metricGroupId: Id,
    metricName: Type.String({
      description:
        "the metric's name when the evaluation was created (a later rename of the metric does not change it)",
    }),
    monitorId: Nullable(Id),
    status: StringEnum(EVALUATION_STATUSES),
    score: Nullable(Type.Number({ minimum: 0, maximum: 1 })),
    reason: Nullable(
      Type.String({ description: 'why the score: for deterministic metrics, what matched or was missing and where' }),
    ),
    error: Nullable(Type.String({ description: 'why the evaluation FAILED or was SKIPPED' })),
    creditsUsed: Type.Number({ minimum: 0 }),
    humanScore: Nullable(Type.Number({ minimum: 0, maximum: 1 })),
    humanReason: Nullable(Type.String()),
    createdAt: DateTime,
    evaluatedAt: Nullable(DateTime),
  },
  { additionalProperties: false },
);
export type Evaluation = Static<typeof EvaluationRecord>;

export const CompatibilityQuery = Type.Object(
  { limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })) },
  { additionalProperties: false },
);

export const SessionRecord = record(
  'Session',
  {
    id: S,
    organizationId: S,
    productId: S,
    versionId: S,
    userId: S,
    customId: Nullable(S),
    testId: Nullable(S),
    testCaseId: Nullable(Type.String({ description: 'null for production sessions' })),
    runId: Type.Optional(Nullable(Type.String({ description: 'the run that created the session' }))),
    repetition: Type.Optional(
      Nullable(
        Type.Integer({ minimum: 1, description: 'a run’s session: which repetition of its test case (1-based)' }),
      ),
    ),
    channel: Type.Optional(
      Nullable(StringEnum(['HTTP', 'PHONE'] as const, { description: 'a run’s session: how the agent was reached' })),
    ),
    context: Nullable(FreeObject),
    stoppingReason: Nullable(S),
    recordingUri: Nullable(S),
    voice: Type.Union([SessionVoice, Type.Null()], {
      description:
        'the call’s voice figures, computed from `recordingUri` by a job after it is set; null without a recording, while they are computed, or when they could not be (`voiceError`)',
    }),
    voiceError: Nullable(
      Type.String({
        description:
          'why a session with a recording has no voice figures (the recording holds no speech, cannot be read, or is not in this service’s storage)',
      }),
    ),
    error: Nullable(S),
    status: StringEnum(SESSION_STATUSES),
    isProduction: Type.Boolean(),
    metadata: FreeObject,
    turnCount: Int,
    lastTurnAt: Nullable(DateTime),
    closedAt: Nullable(DateTime),
    createdAt: DateTime,
    deletedAt,
  },
  'A conversation with an agent, from a test or from production traffic.',
);

export const TurnRecord = record(
  'InferenceResult',
  {
    id: S,
    organizationId: S,
    sessionId: S,
    index: Int,
    input: S,
    output: Nullable(S),
    retrievalContext: Strings,
    latencyMs: Nullable(Type.Number({ minimum: 0 })),
    usage: Type.Object({ inputTokens: Int, outputTokens: Int, cacheReadInputTokens: Int }),
    cost: Nullable(Type.Number({ minimum: 0 })),
    metadata: Type.Record(Type.String(), Type.Unknown(), {
      description: 'about the turn; a voice run’s turn has userAudioUri and agentAudioUri',
    }),
    createdAt: DateTime,
  },
  'A turn of a session (inference result): the user input and the agent output.',
);

export const SpanRecord = record(
  'Span',
  {
    id: Type.String({ description: 'starts with trace_' }),
    organizationId: S,
    sessionId: S,
    inferenceResultId: S,
    name: S,
    type: StringEnum(SPAN_TYPES),
    description: Nullable(S),
    inputData: Nullable(FreeObject),
    outputData: Type.Union([FreeObject, S, Type.Null()]),
    error: Nullable(S),
    latencyMs: Nullable(Type.Number({ minimum: 0 })),
    metadata: FreeObject,
    parentTraceId: Nullable(Type.String({ description: 'the parent span' })),
    startTime: Nullable(DateTime),
    endTime: Nullable(DateTime),
    createdAt: DateTime,
    deletedAt,
  },
  'A step inside a turn (tool call, retrieval, model call…); the REST path keeps the old name, traces.',
);

/** As the API answers it: the type of its response schema. */
export type Session = Static<typeof SessionRecord>;
/** As the API answers it: the type of its response schema. */
export type Turn = Static<typeof TurnRecord>;
/** As the API answers it: the type of its response schema. */
export type Span = Static<typeof SpanRecord>;
