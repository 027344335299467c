/**
 * The records the API answers with, as JSON Schema (TypeBox): the response schemas of the OpenAPI
 * document (infra/openapi.ts, per route in infra/api-reference.ts) and the types of the generated
 * client. Field lists are every field the service writes on a record; records that
 * already had a schema (runs, evaluations, phone connections) are reused from their files.
 */
import * as Type from '@sinclair/typebox';
import type { Static, TSchema } from '@sinclair/typebox';
import { PLANS, ROLES } from '../auth/context.js';
import { EVALUATION_PARAMS, METRIC_SOURCES, TEST_TYPES } from '../domain/evaluation/params.js';
import { DateTime, Nullable, StringEnum } from './common.js';
import { AUTH_TYPES, BACKOFF_STRATEGIES, CONNECTION_TYPES, HTTP_METHODS } from './endpoint-connections.js';
import { Check } from './metrics.js';
import { FILTER_TARGETS, MONITOR_STATUSES } from './monitors.js';
import { SESSION_STATUSES, SPAN_TYPES } from './sessions.js';
import { SPECIFICATION_TYPES } from './specifications.js';
import { SessionVoice } from './voice.js';
import { NOISE_LEVELS, NOISE_PROFILES, TEST_STATUSES } from './tests.js';

const S = Type.String();
const Int = Type.Integer({ minimum: 0 });
const Strings = Type.Array(Type.String());
const FreeObject = Type.Record(Type.String(), Type.Unknown());
/** Present once the record is soft-deleted (only `GET /<resource>/{id}` still shows it). */
const deletedAt = Type.Optional(Type.String({ format: 'date-time', description: 'present once deleted' }));
const record = <P extends Record<string, TSchema>>(title: string, properties: P, description: string) =>
  Type.Object(properties, { title, description });

export const ErrorBody = record(
  'Error',
  {
    error: Type.String({ description: 'the HTTP reason phrase, e.g. Bad Request' }),
    message: Type.String({ description: 'what went wrong: names the field and the rule' }),
  },
  'Every error answer: `{error, message}`.',
);

export const Deleted = record(
  'Deleted',
  { id: S, deletedAt: DateTime },
  'A soft delete: the record stays readable by `GET /<resource>/{id}` with its `deletedAt`.',
);

export const ProductRecord = record(
  'Product',
  {
    id: S,
    organizationId: S,
    userId: S,
    name: S,
    description: S,
    capabilities: Strings,
    inabilities: Strings,
    securityBoundaries: Strings,
    policies: Strings,
    createdAt: DateTime,
    deletedAt,
  },
  'An agent product under evaluation.',
);

export const VersionRecord = record(
  'Version',
  {
    id: S,
    organizationId: S,
    productId: S,
    userId: S,
    name: Type.String({ description: 'unique within the product' }),
    description: S,
    modelId: Nullable(S),
    systemPrompt: Nullable(S),
    conversationEndpointConnectionId: Nullable(S),
    initializationEndpointConnectionId: Nullable(S),
    finalizationEndpointConnectionId: Nullable(S),
    phoneConnectionId: Nullable(Type.String({ description: 'the phone connection a PHONE run dials' })),
    createdAt: DateTime,
    deletedAt,
  },
  'A version of a product: its model, system prompt and the endpoint connections runs call.',
);

export const EndpointConnectionRecord = record(
  'EndpointConnection',
  {
    id: S,
    organizationId: S,
    productId: S,
    userId: S,
    name: S,
    url: S,
    httpMethod: StringEnum(HTTP_METHODS),
    authType: StringEnum(AUTH_TYPES),
    hasAuthToken: Type.Boolean({ description: 'whether a token is configured; the token is never returned' }),
    username: Nullable(S),
    hasPassword: Type.Boolean({ description: 'whether a password is configured; the password is never returned' }),
    headers: Type.Record(Type.String(), Type.String()),
    inputTemplate: S,
    outputMapping: Type.Record(Type.String(), Type.String(), { description: 'name → JSONPath; has the key `output`' }),
    inputSchema: Nullable(FreeObject),
    type: StringEnum(CONNECTION_TYPES),
    timeout: Type.Integer({ minimum: 1, maximum: 120 }),
    rateLimit: Nullable(Type.Integer({ minimum: 1 })),
    retryEnabled: Type.Boolean(),
    retryMaxAttempts: Type.Integer({ minimum: 0, maximum: 10 }),
    retryInitialDelayMs: Int,
    retryBackoffStrategy: StringEnum(BACKOFF_STRATEGIES),
    retryMaxDelayMs: Type.Integer({ minimum: 0, maximum: 60000 }),
    retryableStatusCodes: Type.Array(Type.Integer({ minimum: 100, maximum: 599 })),
    createdAt: DateTime,
    deletedAt,
  },
  'How the service calls a customer agent over HTTP. Secrets are write-only.',
);

export const EndpointConnectionTestResultRecord = record(
  'EndpointConnectionTestResult',
  {
    request: Type.Union([
      Type.Object({ method: S, url: S, headers: Type.Record(Type.String(), Type.String()), body: Nullable(S) }),
      Type.Null(),
    ]),
    response: Type.Union([
      Type.Object({ status: Type.Integer(), headers: Type.Record(Type.String(), Type.String()), body: S }),
      Type.Null(),
    ]),
    extracted: Type.Object(
      {},
      { additionalProperties: true, description: "every outputMapping key's value (empty when the call failed)" },
    ),
    attempts: Int,
    latencyMs: Nullable(Type.Number({ minimum: 0 })),
    error: Nullable(Type.String({ description: 'why the call failed, or null' })),
  },
  'One call to the agent through the connection, as a run would make it (secrets redacted).',
);

export const MetricRecord = record(
  'Metric',
  {
    id: S,
    metricGroupId: Type.String({ description: 'the revision family' }),
    parentMetricId: Nullable(S),
    organizationId: Nullable(Type.String({ description: 'null for a predefined metric' })),
    userId: S,
    name: S,
    evaluationParams: Type.Array(StringEnum(EVALUATION_PARAMS)),
    source: StringEnum(METRIC_SOURCES),
    judgePrompt: Nullable(S),
    tags: Strings,
    description: S,
    documentationUrl: Nullable(S),
    evaluatorModelName: Nullable(S),
    areEvalParamsTop: Type.Boolean(),
    isBeingOptimized: Type.Boolean(),
    specificationIds: Strings,
    userGroupIds: Strings,
    check: Nullable(Check),
    createdAt: DateTime,
    legacyAt: Nullable(DateTime),
    disabledAt: Nullable(DateTime),
    deletedAt,
  },
  'A scoring definition; revisions share a `metricGroupId`.',
);

export const EvaluatorModelRecord = record(
  'EvaluatorModel',
  {
    name: S,
    provider: S,
    providerModelId: S,
    creditsPerEvaluation: Type.Number({ minimum: 0 }),
    unselectableAt: Nullable(DateTime),
    disabledAt: Nullable(DateTime),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  'A platform-wide evaluator (judge) model.',
);

export const SpecificationRecord = record(
  'Specification',
  {
    id: S,
    organizationId: S,
    productId: S,
    userId: S,
    description: S,
    type: StringEnum(SPECIFICATION_TYPES),
    testType: Nullable(StringEnum(TEST_TYPES)),
    testVariant: Nullable(S),
    metricIds: Strings,
    createdAt: DateTime,
    deletedAt,
  },
  'A capability, inability or policy of a product, linked to metrics and tests.',
);

export const MetricLinks = record(
  'MetricLinks',
  {
    specificationId: S,
    metricIds: Type.Array(S, { description: 'every metric linked to the specification after the call' }),
  },
  "A specification's linked metrics.",
);

export const TestRecordSchema = record(
  'Test',
  {
    id: S,
    organizationId: S,
    productId: S,
    userId: S,
    name: S,
    type: StringEnum(TEST_TYPES),
    models: Strings,
    groundTruthUri: Nullable(S),
    uri: Nullable(S),
    error: Nullable(S),
    status: StringEnum(TEST_STATUSES),
    fewShot: Nullable(S),
    languageCode: S,
    backgroundNoiseProfile: Nullable(StringEnum(NOISE_PROFILES)),
    backgroundNoiseLevel: Nullable(StringEnum(NOISE_LEVELS)),
    variants: Strings,
    customVariantDescription: Nullable(S),
    strategies: Strings,
    customUserPersona: Nullable(S),
    maxTestCases: Nullable(Type.Integer()),
    sourceTestId: Nullable(S),
    dataCatalogUri: Nullable(S),
    metadata: FreeObject,
    specificationId: Nullable(S),
    isExtendable: Type.Boolean(),
    testCaseCount: Int,
    createdAt: DateTime,
    deletedAt,
  },
  'A test (dataset): a set of test cases of type QUALITY, RED_TEAMING or SCENARIOS.',
);

export const TestCaseRecord = record(
  'TestCase',
  {
    id: S,
    organizationId: S,
    productId: S,
    testId: S,
    index: Int,
    input: Type.Union([S, FreeObject, Type.Null()]),
    expectedOutput: Nullable(S),
    expectedTools: Strings,
    context: Nullable(S),
    variant: Nullable(S),
    strategy: Nullable(S),
    isAugmented: Type.Boolean({
      description: 'true for a case written by POST /tests/{id}/augment from the test’s existing cases',
    }),
    languageCode: Nullable(S),
    goal: Nullable(S),
    userPersona: Nullable(S),
    scenario: Nullable(S),
    stoppingCriterias: Strings,
    maxIterations: Nullable(Type.Integer()),
    createdAt: DateTime,
    deletedAt,
  },
  'One case of a test.',
);

export const StorageUpload = record(
  'StorageUpload',
  {
    url: Type.String({ description: 'presigned PUT URL' }),
    uri: Type.String({ description: 'the canonical storage URI to send in `uri` fields' }),
    key: S,
    expiresInSeconds: Int,
  },
  'A presigned URL to upload one file into the organization’s storage.',
);
export const StorageDownload = record(
  'StorageDownload',
  { url: Type.String({ description: 'presigned GET URL' }), uri: S, expiresInSeconds: Int },
  'A presigned URL to read one stored file.',
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

export const CompatibilityEntryRecord = record(
  'MetricCompatibilityEntry',
  {
    id: S,
    name: S,
    isCompatible: Type.Boolean(),
    relevance: StringEnum(['linked', 'matching', 'none'] as const),
    source: Nullable(StringEnum(METRIC_SOURCES)),
    description: Nullable(S),
    incompatibilityReason: Nullable(Type.String({ description: 'non-null exactly when isCompatible is false' })),
  },
  'Whether a metric can score a session.',
);

export const MonitorRecord = record(
  'Monitor',
  {
    id: S,
    organizationId: S,
    productId: S,
    name: S,
    metricGroupIds: Strings,
    versionId: Nullable(S),
    userId: S,
    samplingPercentage: Type.Number({ exclusiveMinimum: 0, maximum: 100 }),
    monthlyCreditCap: Nullable(Type.Integer({ minimum: 1 })),
    filterQuery: Nullable(S),
    filterTarget: Nullable(StringEnum(FILTER_TARGETS)),
    excludeQuery: Nullable(S),
    excludeTarget: Nullable(StringEnum(FILTER_TARGETS)),
    status: StringEnum(MONITOR_STATUSES),
    statusUserAt: Type.String({ format: 'date-time', description: 'when a user last wrote the status' }),
    createdAt: DateTime,
    deletedAt,
  },
  'Continuous scoring of sampled production sessions with a credit spend cap.',
);

const Interval = Nullable(Type.Object({ lower: Type.Number(), upper: Type.Number() }));
const scorePoint = {
  scoredSessions: Int,
  score: Nullable(Type.Number({ minimum: 0, maximum: 1 })),
  confidenceInterval: Type.Unsafe<{ lower: number; upper: number } | null>({
    ...Interval,
    description: '95% interval; null below 30 scored sessions',
  }),
  collectingData: Type.Boolean({ description: 'true below 30 scored sessions' }),
};

export const MonitorResultsRecord = record(
  'MonitorResults',
  {
    monitorId: S,
    range: Type.Object({ from: DateTime, to: DateTime, bucketDays: Type.Integer({ minimum: 1 }) }),
    metrics: Type.Array(
      Type.Object({
        metricGroupId: S,
        name: S,
        headline: Type.Object(scorePoint),
        buckets: Type.Array(Type.Object({ ...scorePoint, bucket: DateTime })),
      }),
    ),
    worstMetric: Type.Union([Type.Object({ ...scorePoint, metricGroupId: S, name: S }), Type.Null()]),
    markers: Type.Object({
      metricRevisions: Type.Array(Type.Object({ metricGroupId: S, name: S, metricId: S, at: DateTime })),
      samplingChanges: Type.Array(Type.Object({ at: DateTime, samplingPercentage: Type.Number() })),
    }),
    spend: Type.Object({
      spentCredits: Int,
      pendingCredits: Int,
      capCredits: Nullable(Type.Integer()),
      cycleStart: Nullable(DateTime),
    }),
    sessions: Type.Object({
      scored: Type.Array(
        Type.Object({ sessionId: S, evaluatedAt: DateTime, settledAtTurn: Nullable(Type.Integer()), description: S }),
        { maxItems: 200 },
      ),
      waiting: Type.Array(
        Type.Object({ sessionId: S, lastTurnAt: DateTime, minutesSinceLastTurn: Int, description: S }),
        { maxItems: 100 },
      ),
    }),
  },
  "A monitor's aggregated scores over the window: per family a daily series and a headline.",
);

export const OrganizationRecord = record(
  'Organization',
  {
    id: S,
    name: S,
    plan: StringEnum(PLANS),
    monthlyCredits: Nullable(Type.Integer({ minimum: 0, description: 'null = unlimited' })),
    createdAt: DateTime,
    cycleStart: Nullable(DateTime),
    spentCredits: Int,
    pendingCredits: Int,
    availableCredits: Nullable(Type.Integer({ minimum: 0, description: 'null when credits are unlimited' })),
  },
  "The caller's organization with the current cycle's spend (the cycle is the UTC calendar month).",
);

const apiKeyFields = {
  id: S,
  organizationId: S,
  userId: S,
  role: StringEnum(ROLES),
  name: S,
  last4: Type.String({ description: 'the last 4 characters of the key' }),
  createdAt: DateTime,
  revokedAt: Type.Optional(DateTime),
  deletedAt,
};
export const ApiKeyRecord = record(
  'ApiKey',
  apiKeyFields,
  'An API key; the key itself is shown only once, at creation.',
);
export const CreatedApiKeyRecord = record(
  'CreatedApiKey',
  { ...apiKeyFields, key: Type.String({ description: 'the key, `evk_…`: shown only in this answer' }) },
  'A new API key with its secret.',
);
export const RevokedApiKey = record(
  'RevokedApiKey',
  { id: S, revokedAt: DateTime, deletedAt: DateTime },
  'A revoked key: it no longer authenticates.',
);

const Stamp = Type.Object({ version: S, commit: S, buildDate: S });
export const BuildInfoRecord = record('BuildInfo', { api: Stamp }, 'The API build.');
export const BuildInfoServicesRecord = record(
  'BuildInfoServices',
  {
    api: Stamp,
    services: Type.Array(
      Type.Object({ name: S, status: StringEnum(['ok', 'unreachable'] as const), version: S, commit: S, buildDate: S }),
    ),
  },
  'The API build and the build of each downstream service; one that is down is `unreachable`.',
);

export const BatchDeleted = record(
  'BatchDeleted',
  { ids: Strings, deletedAt: DateTime },
  'An all-or-nothing batch soft delete.',
);

// The records' types, derived from their schemas (the request schemas of each resource live in its own module).
/** The readable record: secrets never appear, only `hasAuthToken` and `hasPassword`. */
export type EndpointConnection = Static<typeof EndpointConnectionRecord>;
/** As the API answers it: the type of its response schema. */
export type Metric = Static<typeof MetricRecord>;
/** As the API answers it: the type of its response schema. */
export type EvaluatorModel = Static<typeof EvaluatorModelRecord>;
/** As the API answers it: the type of its response schema. */
export type Monitor = Static<typeof MonitorRecord>;
/** As the API answers it: the type of its response schema. */
export type Session = Static<typeof SessionRecord>;
/** As the API answers it: the type of its response schema. */
export type Turn = Static<typeof TurnRecord>;
/** As the API answers it: the type of its response schema. */
export type Span = Static<typeof SpanRecord>;
/** As the API answers it: the type of its response schema. */
export type Specification = Static<typeof SpecificationRecord>;
/** As the API answers it: the type of its response schema. */
export type TestRecord = Static<typeof TestRecordSchema>;
/** As the API answers it: the type of its response schema. */
export type TestCase = Static<typeof TestCaseRecord>;
