/**
 * The API reference of every route, keyed by the route's handler (shared/routes.ts): prose and
 * examples only. Summary, description, the error statuses a route adds to the ones every route
 * has, and examples; the schemas are the route's own (shared/routes/). infra/openapi.ts joins the
 * two; a test fails when a route has no entry here, or an example does not match its schema.
 */
import type { Static } from '@sinclair/typebox';
import type { ApiKeyRecord, OrganizationRecord } from '../shared/schemas/organization.js';
import type { Deleted } from '../shared/schemas/answers.js';
import type { EndpointConnectionRecord } from '../shared/schemas/endpoint-connections.js';
import type { EvaluatorModelRecord, MetricRecord } from '../shared/schemas/metrics.js';
import type { MonitorRecord, MonitorResultsRecord } from '../shared/schemas/monitors.js';
import type { ProductRecord, VersionRecord } from '../shared/schemas/products.js';
import type { SessionRecord, SpanRecord, TurnRecord } from '../shared/schemas/sessions.js';
import type { SpecificationRecord } from '../shared/schemas/specifications.js';
import type { TestCaseRecord, TestRecordSchema } from '../shared/schemas/tests.js';
import type { PhoneConnection } from '../shared/schemas/phone-connections.js';
import type { ComparisonCase, Run, RunComparison } from '../shared/schemas/runs.js';
import type { Evaluation } from '../shared/schemas/sessions.js';
import type { Delivery, Webhook } from '../shared/schemas/webhooks.js';
import type { Alert, AlertRule } from '../shared/schemas/alerts.js';
import type { ReviewItem, ReviewQueue, ReviewTask } from '../shared/schemas/review.js';
import type { AgreementFigures } from '../shared/domain/review/statistics.js';

export interface OperationDoc {
  summary: string;
  description: string;
  /** Statuses this route answers beyond 400, 401, 413/415 (bodies), 403/404 (`{id}` routes), 429, 500: status → when. */
  errors?: Record<number, string>;
  /** The success status when it is not the usual one (201 for POST …/create and …/batch, else 200). */
  successStatus?: number;
  /** When the route answers 204 without a body. */
  noContent?: string;
  /** Another success status the route answers with the same body (PUT: 201 new, 200 replaced). */
  alsoStatus?: { status: number; when: string };
  /** False for a GET answering an array (its route's `response`) that is not a page (no `X-Total-Count`). */
  paged?: false;
  /** The label of the path's record in messages (`product prod_… not found`). */
  record?: string;
  example: { request?: unknown; response: unknown };
}

// ---------- example records (type-checked here, validated against their schemas by test/unit/openapi-reference.test.ts) ----------
const AT = '2026-11-20T09:15:00.000Z';
const LATER = '2026-11-20T09:16:30.250Z';
const ORG = 'org_01JDA0Q8X3V9N2C4T6W8Y0ZB1Q';
const USER = 'usr_01JDA0Q8X4M1K7R5P3H9G2F6DS';
const PRODUCT = 'prod_01JDA1B2C3D4E5F6G7H8J9K0MN';
const VERSION = 'ver_01JDA1C5V7Z9X1B3N5M7Q9W1ER';
const ECON = 'econ_01JDA1D8K2J4H6G8F0D2S4A6PQ';
const METRIC = 'met_01JDA1E3T5Y7U9I1O3P5A7S9DF';
const GROUP = 'mgrp_01JDA1E3T5Y7U9I1O3P5A7S9DG';
const SPEC = 'spec_01JDA1F6G8H0J2K4L6Z8X0C2VB';
const TEST = 'test_01JDA1G9N1M3Q5W7E9R1T3Y5UI';
const TCASE = 'tcase_01JDA1H2O4P6A8S0D2F4G6H8JK';
const SESSION = 'sess_01JDA1J5L7Z9X1C3V5B7N9M1QW';
const TURN = 'inf_01JDA1K8E0R2T4Y6U8I0O2P4AS';
const SPAN = 'trace_01JDA1M1D3F5G7H9J1K3L5Z7XC';
const EVALUATION = 'eval_01JDA1N4V6B8N0M2Q4W6E8R0TY';
const MONITOR = 'mon_01JDA1P7U9I1O3P5A7S9D1F3GH';
const RUN = 'run_01JDA1Q0J2K4L6Z8X0C2V4B6NM';
const PHONE = 'phc_01JDA1R3Q5W7E9R1T3Y5U7I9OP';
const KEY = 'key_01JDA1S6A8S0D2F4G6H8J0K2LZ';

const product: Static<typeof ProductRecord> = {
  id: PRODUCT,
  organizationId: ORG,
  userId: USER,
  name: 'Support bot',
  description: 'Answers billing questions for Acme customers',
  capabilities: ['explains an invoice line by line'],
  inabilities: ['cannot issue refunds'],
  securityBoundaries: ['never reveals another customer’s data'],
  policies: ['answers in the customer’s language'],
  createdAt: AT,
};
const version: Static<typeof VersionRecord> = {
  id: VERSION,
  organizationId: ORG,
  productId: PRODUCT,
  userId: USER,
  name: 'v1',
  description: 'first release',
  modelId: 'gpt-4o-mini',
  systemPrompt: 'You are Acme’s billing assistant.',
  conversationEndpointConnectionId: ECON,
  initializationEndpointConnectionId: null,
  finalizationEndpointConnectionId: null,
  phoneConnectionId: null,
  createdAt: AT,
};
const endpointConnection: Static<typeof EndpointConnectionRecord> = {
  id: ECON,
  organizationId: ORG,
  productId: PRODUCT,
  userId: USER,
  name: 'chat',
  url: 'https://agent.example.com/chat',
  httpMethod: 'POST',
  authType: 'BEARER',
  hasAuthToken: true,
  username: null,
  hasPassword: false,
  headers: { 'X-Tenant': 'acme' },
  inputTemplate: '{"message": "{{ input.user_message }}"}',
  outputMapping: { output: '$.reply' },
  inputSchema: null,
  type: 'CONVERSATION',
  timeout: 15,
  rateLimit: 60,
  retryEnabled: true,
  retryMaxAttempts: 3,
  retryInitialDelayMs: 500,
  retryBackoffStrategy: 'EXPONENTIAL',
  retryMaxDelayMs: 10000,
  retryableStatusCodes: [429, 502, 503],
  createdAt: AT,
};
const metric: Static<typeof MetricRecord> = {
  id: METRIC,
  metricGroupId: GROUP,
  parentMetricId: null,
  organizationId: ORG,
  userId: USER,
  name: 'politeness',
  evaluationParams: ['input', 'actual_output'],
  source: 'PARTIAL_PROMPT',
  judgePrompt: 'Score 1 when the answer is polite, 0 when it is rude.',
  tags: ['tone'],
  description: 'Is the agent polite?',
  documentationUrl: null,
  evaluatorModelName: 'gpt-4o-mini',
  areEvalParamsTop: false,
  isBeingOptimized: false,
  specificationIds: [SPEC],
  userGroupIds: [],
  check: null,
  createdAt: AT,
  legacyAt: null,
  disabledAt: null,
};
const model: Static<typeof EvaluatorModelRecord> = {
  name: 'gpt-4o-mini',
  provider: 'openai',
  providerModelId: 'gpt-4o-mini-2024-07-18',
  creditsPerEvaluation: 1,
  unselectableAt: null,
  disabledAt: null,
  createdAt: AT,
  updatedAt: AT,
};
const specification: Static<typeof SpecificationRecord> = {
  id: SPEC,
  organizationId: ORG,
  productId: PRODUCT,
  userId: USER,
  description: 'explains an invoice line by line',
  type: 'CAPABILITY',
  testType: null,
  testVariant: null,
  metricIds: [METRIC],
  createdAt: AT,
};
const test: Static<typeof TestRecordSchema> = {
  id: TEST,
  organizationId: ORG,
  productId: PRODUCT,
  userId: USER,
  name: 'billing questions',
  type: 'QUALITY',
  models: [],
  groundTruthUri: null,
  uri: 's3://eval-platform-data/orgs/org_01JDA0Q8X3V9N2C4T6W8Y0ZB1Q/uploads/01JDA1T9Z1X3C5V7B9N1M3Q5WE/cases.csv',
  error: null,
  status: 'SUCCESS',
  fewShot: null,
  languageCode: 'en-US',
  backgroundNoiseProfile: null,
  backgroundNoiseLevel: null,
  variants: [],
  customVariantDescription: null,
  strategies: [],
  customUserPersona: null,
  maxTestCases: null,
  sourceTestId: null,
  dataCatalogUri: null,
  metadata: { owner: 'billing-team' },
  specificationId: SPEC,
  isExtendable: false,
  testCaseCount: 2,
  createdAt: AT,
};
const testCase: Static<typeof TestCaseRecord> = {
  id: TCASE,
  organizationId: ORG,
  productId: PRODUCT,
  testId: TEST,
  index: 0,
  input: 'Why was I charged twice in October?',
  expectedOutput: 'One of the two charges is a pending authorisation that will drop off.',
  expectedTools: [],
  context: null,
  variant: null,
  strategy: null,
  languageCode: null,
  goal: null,
  userPersona: null,
  scenario: null,
  stoppingCriterias: [],
  maxIterations: null,
  isAugmented: false,
  createdAt: AT,
};
const redTeam: Static<typeof TestRecordSchema> = {
  ...test,
  id: 'test_01JDA1Y1M3N5B7V9C1X3Z5L7KJ',
  name: 'jailbreak probes',
  type: 'RED_TEAMING',
  uri: null,
  status: 'PENDING',
  variants: ['prompt_injection'],
  strategies: ['original', 'base64', 'leetspeak'],
  maxTestCases: 30,
  specificationId: null,
  testCaseCount: 0,
};
const session: Static<typeof SessionRecord> = {
  id: SESSION,
  organizationId: ORG,
  productId: PRODUCT,
  versionId: VERSION,
  userId: USER,
  customId: 'ticket-4711',
  testId: null,
  testCaseId: null,
  context: null,
  stoppingReason: null,
  recordingUri: null,
  voice: null,
  voiceError: null,
  error: null,
  status: 'PENDING',
  isProduction: true,
  metadata: { channel: 'web' },
  turnCount: 1,
  lastTurnAt: LATER,
  closedAt: null,
  createdAt: AT,
};
const turn: Static<typeof TurnRecord> = {
  id: TURN,
  organizationId: ORG,
  sessionId: SESSION,
  index: 0,
  input: 'Why was I charged twice in October?',
  output: 'One of the two charges is a pending authorisation; it will drop off within 3 days.',
  retrievalContext: ['Pending authorisations are released after 3 business days.'],
  latencyMs: 840,
  usage: { inputTokens: 412, outputTokens: 38, cacheReadInputTokens: 0 },
  cost: 0.00021,
  metadata: {},
  createdAt: LATER,
};
const span: Static<typeof SpanRecord> = {
  id: SPAN,
  organizationId: ORG,
  sessionId: SESSION,
  inferenceResultId: TURN,
  name: 'search_billing_docs',
  type: 'RETRIEVER',
  description: null,
  inputData: { query: 'charged twice' },
  outputData: 'Pending authorisations are released after 3 business days.',
  error: null,
  latencyMs: 120,
  metadata: {},
  parentTraceId: null,
  startTime: AT,
  endTime: '2026-11-20T09:15:00.120Z',
  createdAt: LATER,
};
const evaluation: Evaluation = {
  id: EVALUATION,
  organizationId: ORG,
  sessionId: SESSION,
  inferenceResultId: null,
  metricId: METRIC,
  metricGroupId: GROUP,
  metricName: 'politeness',
  monitorId: null,
  status: 'SUCCESS',
  score: 1,
  reason: 'The answer is courteous and thanks the customer.',
  error: null,
  creditsUsed: 1,
  humanScore: null,
  humanReason: null,
  createdAt: LATER,
  evaluatedAt: LATER,
};
const run: Static<typeof Run> = {
  id: RUN,
  organizationId: ORG,
  productId: PRODUCT,
  versionId: VERSION,
  userId: USER,
  name: 'nightly billing run',
  testIds: [TEST],
  specificationIds: [SPEC],
  metricIds: [METRIC],
  repetitions: 1,
  threshold: 0.5,
  channel: 'HTTP',
  status: 'RUNNING',
  progress: { total: 2, pending: 0, running: 1, completed: 1, failed: 0 },
  metrics: [
    {
      metricId: METRIC,
      name: 'politeness',
      evaluated: 1,
      failed: 0,
      skipped: 0,
      score: 1,
      confidenceInterval: null,
      passRate: null,
    },
  ],
  error: null,
  createdAt: AT,
  startedAt: LATER,
  finishedAt: null,
};
const BASE_RUN = 'run_01JDA0Z8M4N6B8V0C2X4Z6L8KJ';
const comparison: Static<typeof RunComparison> = {
  runId: RUN,
  baseRunId: BASE_RUN,
  pairedBy: 'testCaseId',
  verdict: 'regressed',
  metrics: [
    {
      metricId: METRIC,
      name: 'politeness',
      n: 48,
      onlyInBase: 2,
      onlyInRun: 0,
      baseScore: 0.86,
      score: 0.79,
      difference: -0.07,
      standardError: 0.021,
      confidenceInterval: [-0.1122, -0.0278],
      pValue: 0.0017,
      adjustedPValue: 0.0034,
      verdict: 'regressed',
      minimumDetectableEffect: 0.0602,
    },
    {
      metricId: 'met_text_similarity',
      name: 'text_similarity',
      n: 48,
      onlyInBase: 2,
      onlyInRun: 0,
      baseScore: 0.71,
      score: 0.72,
      difference: 0.01,
      standardError: 0.018,
      confidenceInterval: [-0.0262, 0.0462],
      pValue: 0.58,
      adjustedPValue: 0.58,
      verdict: 'no_significant_change',
      minimumDetectableEffect: 0.0516,
    },
  ],
};
const comparisonCase: Static<typeof ComparisonCase> = {
  testCaseId: TCASE,
  metricId: METRIC,
  metricName: 'politeness',
  input: 'Where is my refund? I was charged twice for order 1042.',
  baseScore: 0.9,
  score: 0.35,
  difference: -0.55,
  baseSessionIds: ['sess_01JDA0Z9Q1W3E5R7T9Y1U3I5OP'],
  sessionIds: [SESSION, 'sess_01JDA1J5L7Z9X1C3V5B7N9M1QX'],
};
const junit = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="nightly billing run" tests="6" failures="2" errors="1">
  <testsuite name="sessions" tests="3" failures="0" errors="1">
    <testcase classname="billing questions" name="Where is my refund? I was charged twice for order 1042."/>
    <testcase classname="billing questions" name="Cancel my subscription &amp; refund the last month"/>
    <testcase classname="billing questions" name="Do you ship to Canada?">
      <error message="session FAILED: CONVERSATION turn 1 failed: the agent answered 503: upstream timeout">session sess_01JDA1J5L7Z9X1C3V5B7N9M1QX, test case tcase_01JD9ZQ8M2V4B6N8P0R2T4W6YC, repetition 1
CONVERSATION turn 1 failed: the agent answered 503: upstream timeout</error>
    </testcase>
  </testsuite>
  <testsuite name="politeness" tests="2" failures="1" errors="0">
    <testcase classname="billing questions" name="Where is my refund? I was charged twice for order 1042."/>
    <testcase classname="billing questions" name="Cancel my subscription &amp; refund the last month">
      <failure message="score 0.35 is below the threshold 0.5: The answer is curt and does not apologise.">test case ${TCASE}: mean score 0.35 over 1 evaluation
repetition 1, session ${SESSION}: 0.35: The answer is curt and does not apologise.</failure>
    </testcase>
  </testsuite>
  <testsuite name="comparison" tests="1" failures="1" errors="0">
    <testcase classname="comparison" name="politeness">
      <failure message="difference -0.07 (95% CI [-0.1122, -0.0278]), adjusted p 0.0034">metric ${METRIC} regressed against run ${BASE_RUN}</failure>
    </testcase>
  </testsuite>
</testsuites>`;
const monitor: Static<typeof MonitorRecord> = {
  id: MONITOR,
  organizationId: ORG,
  productId: PRODUCT,
  name: 'production politeness',
  metricGroupIds: [GROUP],
  versionId: null,
  userId: USER,
  samplingPercentage: 25,
  monthlyCreditCap: 500,
  filterQuery: 'refund, charge',
  filterTarget: 'INPUT',
  excludeQuery: null,
  excludeTarget: null,
  status: 'ACTIVE',
  statusUserAt: AT,
  createdAt: AT,
};
const point = (scoredSessions: number, score: number | null) => ({
  scoredSessions,
  score,
  confidenceInterval:
    scoredSessions >= 30 && score !== null
      ? { lower: Math.max(0, score - 0.06), upper: Math.min(1, score + 0.06) }
      : null,
  collectingData: scoredSessions < 30,
});
const monitorResults: Static<typeof MonitorResultsRecord> = {
  monitorId: MONITOR,
  range: { from: '2026-11-14T00:00:00.000Z', to: AT, bucketDays: 1 },
  metrics: [
    {
      metricGroupId: GROUP,
      name: 'politeness',
      headline: point(42, 0.91),
      buckets: [
        { ...point(12, 0.92), bucket: '2026-11-19T00:00:00.000Z' },
        { ...point(30, 0.9), bucket: '2026-11-20T00:00:00.000Z' },
      ],
    },
  ],
  worstMetric: { ...point(42, 0.91), metricGroupId: GROUP, name: 'politeness' },
  markers: {
    metricRevisions: [{ metricGroupId: GROUP, name: 'politeness', metricId: METRIC, at: AT }],
    samplingChanges: [{ at: AT, samplingPercentage: 25 }],
  },
  spend: { spentCredits: 42, pendingCredits: 2, capCredits: 500, cycleStart: '2026-11-01T00:00:00.000Z' },
  sessions: {
    scored: [
      { sessionId: SESSION, evaluatedAt: LATER, settledAtTurn: 1, description: 'Why was I charged twice in October?' },
    ],
    waiting: [
      {
        sessionId: 'sess_01JDA1V2B4N6M8Q0W2E4R6T8YU',
        lastTurnAt: AT,
        minutesSinceLastTurn: 4,
        description: 'Can I change my billing address?',
      },
    ],
  },
};
const phoneConnection: Static<typeof PhoneConnection> = {
  id: PHONE,
  organizationId: ORG,
  productId: PRODUCT,
  userId: USER,
  name: 'support line',
  phoneNumber: '+14155550123',
  agentSpeaksFirst: false,
  createdAt: AT,
};
const organization: Static<typeof OrganizationRecord> = {
  id: ORG,
  name: 'Acme',
  plan: 'PRO',
  monthlyCredits: 1000,
  createdAt: AT,
  cycleStart: '2026-11-01T00:00:00.000Z',
  spentCredits: 42,
  pendingCredits: 2,
  availableCredits: 956,
};
const apiKey: Static<typeof ApiKeyRecord> = {
  id: KEY,
  organizationId: ORG,
  userId: USER,
  role: 'MEMBER',
  name: 'ci',
  last4: 'x9Qa',
  createdAt: AT,
};
const stamp = { version: '0.1.0', commit: 'a83e304', buildDate: AT };
const deleted = (id: string): Static<typeof Deleted> => ({ id, deletedAt: LATER });

const WEBHOOK = 'wh_01JDA1T9S1D3F5G7H9J1K3L5ZX';
const MESSAGE = 'msg_01JDA1V2C4V6B8N0M2Q4W6E8RT';
const ALERT_RULE = 'alr_01JDA1W5Y7U9I1O3P5A7S9D1FG';
const ALERT = 'alert_01JDA1X8H0J2K4L6Z8X0C2V4BN';
const webhook: Webhook = {
  id: WEBHOOK,
  organizationId: ORG,
  userId: USER,
  url: 'https://hooks.example.com/eval',
  events: ['run.completed', 'run.failed', 'monitor.status_changed'],
  description: 'runs and monitors to the on-call channel',
  status: 'ENABLED',
  disabledReason: null,
  disabledAt: null,
  failingSince: null,
  createdAt: AT,
};
const delivery: Delivery = {
  id: MESSAGE,
  webhookId: WEBHOOK,
  type: 'ping',
  status: 'SUCCEEDED',
  attemptCount: 1,
  responseCode: 204,
  durationMs: 87,
  error: null,
  lastAttemptAt: LATER,
  nextAttemptAt: null,
  attempts: [{ attempt: 1, at: LATER, responseCode: 204, durationMs: 87, ok: true, error: null }],
  payload: { type: 'ping', timestamp: LATER, data: { webhookId: WEBHOOK } },
  createdAt: LATER,
};
const alertRule: AlertRule = {
  id: ALERT_RULE,
  monitorId: MONITOR,
  organizationId: ORG,
  userId: USER,
  metricGroupId: GROUP,
  window: '1h',
  below: 0.7,
  minSessions: 20,
  confidence: 'interval',
  openAlertId: null,
  createdAt: AT,
};
const alert: Alert = {
  id: ALERT,
  monitorId: MONITOR,
  organizationId: ORG,
  ruleId: ALERT_RULE,
  metricGroupId: GROUP,
  window: '1h',
  below: 0.7,
  minSessions: 20,
  confidence: 'interval',
  status: 'OPEN',
  score: 0.55,
  interval: { lower: 0.423, upper: 0.677 },
  scoredSessions: 60,
  openedAt: LATER,
  resolvedAt: null,
  resolvedScore: null,
  resolution: null,
  createdAt: LATER,
};

const REVIEW_QUEUE = 'rq_01JDA1Y1K3L5Z7X9C1V3B5N7MQ';
const REVIEW_ITEM = 'rqi_01JDA1Z4N6M8Q0W2E4R6T8Y0UI';
const reviewQueue: ReviewQueue = {
  id: REVIEW_QUEUE,
  organizationId: ORG,
  productId: PRODUCT,
  name: 'Billing answers, weekly sample',
  metricIds: [METRIC],
  reviewersPerItem: 2,
  instructions: 'Score 1 when the answer states the right refund rule and is polite; 0 otherwise.',
  counts: { items: 40, pending: 31, done: 9 },
  userId: USER,
  createdAt: AT,
};
const reviewItem: ReviewItem = {
  id: REVIEW_ITEM,
  queueId: REVIEW_QUEUE,
  organizationId: ORG,
  sessionId: SESSION,
  origin: 'sample',
  status: 'PENDING',
  labels: [{ reviewer: 'ana', metricId: METRIC, score: 1, reason: 'right rule, polite', createdAt: LATER }],
  createdAt: AT,
};
const reviewTask: ReviewTask = {
  queueId: REVIEW_QUEUE,
  itemId: REVIEW_ITEM,
  sessionId: SESSION,
  instructions: reviewQueue.instructions,
  metrics: [{ id: METRIC, name: 'politeness', description: 'Is the answer polite?' }],
  context: { plan: 'pro' },
  expectedOutput: 'Refunds are possible within 30 days.',
  turns: [
    {
      index: 0,
      input: 'Can I get a refund?',
      output: 'Yes, within 30 days of purchase.',
      retrievalContext: ['Refunds: 30 days.'],
    },
  ],
  remaining: 31,
};
const agreement: { metricId: string } & AgreementFigures = {
  metricId: METRIC,
  n: 48,
  judgeMean: 0.79,
  humanMean: 0.75,
  bias: 0.04,
  biasInterval: { lower: -0.02, upper: 0.1 },
  meanAbsoluteError: 0.08,
  spearman: null,
  spearmanInterval: null,
  binary: true,
  kappa: 0.81,
  kappaInterval: { lower: 0.64, upper: 0.98 },
  truePositiveRate: 0.97,
  trueNegativeRate: 0.83,
  reviewers: { alpha: 0.78, units: 9, values: 18 },
  verdict: 'calibrated',
};

// ---------- operations ----------
const list = (what: string, filters: string) =>
  `Lists ${what} of the caller's organization: a JSON array, with the number of matches in the \`X-Total-Count\` header. ` +
  `The query parameters filter, sort and page it (\`limit\` 1–1000, default 100; \`offset\`, default 0); an unknown parameter or a bad value is a 400.${filters ? ` ${filters}` : ''}`;
const read = (what: string) =>
  `Reads one ${what} by id. A deleted ${what} is still answered, with its \`deletedAt\`, so references stay resolvable.`;
const softDelete = (what: string, also = '') =>
  `Soft-deletes the ${what}: it gets a \`deletedAt\`, leaves every list and can no longer be written, but \`GET\` by id still answers it.${also ? ` ${also}` : ''}`;
const patch = (what: string, fields: string) =>
  `Updates the ${what}: an omitted field is unchanged, \`null\` clears a nullable field, an immutable or server-managed field is a 400. Updatable: ${fields}.`;

export const apiReference: Readonly<Record<string, OperationDoc>> = {
  // organization and API keys
  'organization/get': {
    summary: 'Read the caller’s organization',
    description:
      'The organization the key belongs to: plan, monthly credits (null = unlimited) and the current cycle’s spend (the cycle is the UTC calendar month).',
    example: { response: organization },
  },
  'organization/update': {
    summary: 'Change an organization’s plan or credits (ADMIN)',
    description:
      'Platform operators only (an ADMIN key): sets `plan`, `monthlyCredits` (null = unlimited) or `name` of any organization.',
    record: 'organization',
    example: {
      request: { plan: 'ENTERPRISE', monthlyCredits: 5000 },
      response: { ...organization, plan: 'ENTERPRISE', monthlyCredits: 5000, availableCredits: 4956 },
    },
  },
  'api-keys/create': {
    summary: 'Create an API key',
    description:
      'Creates a MEMBER key for the caller’s organization. The key (`evk_…`) is in this answer only: the service keeps its SHA-256.',
    example: {
      request: { name: 'ci' },
      response: { ...apiKey, key: 'evk_3kTq9ZpL0aXw7BvN2mYc8RdE5fGh1JsUx9Qa0b1c2d' },
    },
  },
  'api-keys/list': {
    summary: 'List API keys',
    description: list(
      'the API keys (never the key itself, only its last 4 characters)',
      '`includeRevoked=true` also lists revoked keys.',
    ),
    example: { response: [apiKey] },
  },
  'api-keys/get': {
    summary: 'Read an API key',
    description: read('API key'),
    record: 'API key',
    example: { response: apiKey },
  },
  'api-keys/delete': {
    summary: 'Revoke an API key',
    description: 'Revokes the key: it stops authenticating (the gateway caches a key’s answer for up to 5 minutes).',
    record: 'API key',
    example: { response: { id: KEY, revokedAt: LATER, deletedAt: LATER } },
  },

  // products
  'products/create': {
    summary: 'Create a product',
    description:
      'Creates an agent product: its description and the capabilities, inabilities, security boundaries and policies tests and metrics refer to.',
    example: {
      request: {
        name: product.name,
        description: product.description,
        capabilities: product.capabilities,
        inabilities: product.inabilities,
      },
      response: product,
    },
  },
  'products/list': {
    summary: 'List products',
    description: list('products', ''),
    example: { response: [product] },
  },
  'products/get': {
    summary: 'Read a product',
    description: read('product'),
    record: 'product',
    example: { response: product },
  },
  'products/update': {
    summary: 'Update a product',
    description: patch(
      'product',
      '`name`, `description`, `capabilities`, `inabilities`, `securityBoundaries`, `policies`',
    ),
    record: 'product',
    example: {
      request: { description: 'Answers billing and plan questions' },
      response: { ...product, description: 'Answers billing and plan questions' },
    },
  },
  'products/delete': {
    summary: 'Delete a product',
    description: softDelete(
      'product',
      'Its versions, connections, specifications, tests and monitors are deleted with it.',
    ),
    record: 'product',
    example: { response: deleted(PRODUCT) },
  },

  // versions
  'versions/create': {
    summary: 'Create a version',
    description:
      'Creates a version of a product. The name is unique within the product (409); each endpoint connection id must name a connection of the same product with the matching type.',
    errors: {
      403: '`productId` or a connection id names another organization’s record',
      409: 'a version of that name already exists in the product',
    },
    example: {
      request: { productId: PRODUCT, name: 'v1', modelId: 'gpt-4o-mini', conversationEndpointConnectionId: ECON },
      response: version,
    },
  },
  'versions/list': {
    summary: 'List versions',
    description: list('versions', '`productIds` narrows to products.'),
    example: { response: [version] },
  },
  'versions/get': {
    summary: 'Read a version',
    description: read('version'),
    record: 'version',
    example: { response: version },
  },
  'versions/update': {
    summary: 'Update a version',
    description: patch(
      'version',
      '`name`, `description`, `modelId`, `systemPrompt` and the three endpoint connection ids; `productId` is immutable',
    ),
    record: 'version',
    errors: { 409: 'a version of that name already exists in the product' },
    example: {
      request: { systemPrompt: 'You are Acme’s billing assistant. Be brief.' },
      response: { ...version, systemPrompt: 'You are Acme’s billing assistant. Be brief.' },
    },
  },
  'versions/delete': {
    summary: 'Delete a version',
    description: softDelete('version', 'Its name is free again within the product.'),
    record: 'version',
    example: { response: deleted(VERSION) },
  },

  // endpoint connections
  'endpoint-connections/create': {
    summary: 'Create an endpoint connection',
    description:
      'How runs call the agent: URL, method, authentication, the request body template (must contain `{{ input.user_message }}`), the output mapping (JSONPath per name, with `output`), timeout 1–120 s (15), rate limit and retries. `authToken` and `password` are write-only: reads show `hasAuthToken` and `hasPassword`.',
    errors: { 403: '`productId` names another organization’s product' },
    example: {
      request: {
        productId: PRODUCT,
        name: 'chat',
        url: 'https://agent.example.com/chat',
        type: 'CONVERSATION',
        authType: 'BEARER',
        authToken: 'sk-agent-secret',
        inputTemplate: '{"message": "{{ input.user_message }}"}',
        outputMapping: { output: '$.reply' },
        retryEnabled: true,
        retryMaxAttempts: 3,
      },
      response: endpointConnection,
    },
  },
  'endpoint-connections/list': {
    summary: 'List endpoint connections',
    description: list(
      'endpoint connections',
      'Filters: `productIds`, `url` (substring), `types`, `httpMethods`, `authTypes`.',
    ),
    example: { response: [endpointConnection] },
  },
  'endpoint-connections/get': {
    summary: 'Read an endpoint connection',
    description: read('endpoint connection'),
    record: 'endpoint connection',
    example: { response: endpointConnection },
  },
  'endpoint-connections/update': {
    summary: 'Update an endpoint connection',
    description: patch(
      'endpoint connection',
      'every field of the create body but `productId`; the type cannot change while a version uses the connection (409)',
    ),
    record: 'endpoint connection',
    errors: { 409: 'a version uses the connection in a way the change would break' },
    example: { request: { timeout: 30 }, response: { ...endpointConnection, timeout: 30 } },
  },
  'endpoint-connections/delete': {
    summary: 'Delete an endpoint connection',
    description: softDelete(
      'endpoint connection',
      'A connection a live version uses cannot be deleted (409); its secrets are erased.',
    ),
    record: 'endpoint connection',
    errors: { 409: 'a version uses the connection' },
    example: { response: deleted(ECON) },
  },
  'endpoint-connections/test': {
    summary: 'Call the agent once through a connection',
    description:
      'Makes one real call with the connection’s settings (auth, timeout, retries, rate limit) and answers what was sent and received, with secrets shown as `***` and bodies cut at 64 KB. The agent’s failure is reported in `error`, never as a 5xx; nothing is stored.',
    record: 'endpoint connection',
    example: {
      request: { input: { user_message: 'Why was I charged twice?' } },
      response: {
        request: {
          method: 'POST',
          url: 'https://agent.example.com/chat',
          headers: { authorization: '***', 'content-type': 'application/json' },
          body: '{"message": "Why was I charged twice?"}',
        },
        response: {
          status: 200,
          headers: { 'content-type': 'application/json' },
          body: '{"reply":"One charge is a pending authorisation."}',
        },
        extracted: { output: 'One charge is a pending authorisation.' },
        attempts: 1,
        latencyMs: 412,
        error: null,
      },
    },
  },

  // metrics and models
  'metrics/create': {
    summary: 'Create a metric (or a revision)',
    description:
      'Creates a scoring definition. With `parentMetricId` it is a revision: it joins the parent’s family (`metricGroupId`) and an active parent becomes legacy. `source` FULL_PROMPT is rejected (400); an unselectable or disabled evaluator model is a 400. `source` DETERMINISTIC with a `check` (contains, not_contains, equals, starts_with, ends_with, contains_any, contains_all, regex, is_json, json_schema, length) creates the organization’s own check, scored in code (1 or 0) with a reason naming what matched or was missing; `evaluationParams` is then derived from `check.target`, and a regex that can backtrack catastrophically is a 400.',
    errors: {
      403: '`parentMetricId` names another organization’s metric',
      404: '`parentMetricId` names no metric, or a deleted one',
    },
    example: {
      request: {
        name: 'politeness',
        source: 'PARTIAL_PROMPT',
        evaluationParams: ['input', 'actual_output'],
        judgePrompt: metric.judgePrompt,
        evaluatorModelName: 'gpt-4o-mini',
        tags: ['tone'],
        specificationIds: [SPEC],
      },
      response: metric,
    },
  },
  'metrics/list': {
    summary: 'List metrics',
    description: list(
      'metrics (and the predefined ones)',
      'Filters: `organizationIds`, `productIds` (linked to a specification of those products), `description` (substring), `tags` (any), `sources`, `specificationIds`, `userGroupIds`, `includeDefault` (true), `includeOwned` (true), `includeLegacy` (false), `monitorable` (only metrics a monitor may bind).',
    ),
    example: { response: [metric] },
  },
  'metrics/get': {
    summary: 'Read a metric',
    description: read('metric'),
    record: 'metric',
    example: { response: metric },
  },
  'metrics/update': {
    summary: 'Update a metric’s labels',
    description: patch(
      'metric',
      '`name`, `description`, `tags`, `documentationUrl`, `userGroupIds`; a new judge prompt or parameters is a revision (`POST /metrics` with `parentMetricId`). Predefined metrics cannot be changed (403)',
    ),
    record: 'metric',
    example: { request: { tags: ['tone', 'support'] }, response: { ...metric, tags: ['tone', 'support'] } },
  },
  'metrics/delete': {
    summary: 'Delete a metric',
    description: softDelete('metric', 'Predefined metrics cannot be deleted (403).'),
    record: 'metric',
    example: { response: deleted(METRIC) },
  },
  'models/list': {
    summary: 'List evaluator models',
    description:
      'The platform’s evaluator (judge) models with their credits per evaluation; `X-Total-Count` holds their number.',
    example: { response: [model] },
  },
  'models/put': {
    summary: 'Create or replace an evaluator model (ADMIN)',
    description:
      'Platform operators only (an ADMIN key): writes the model named in the path. `unselectableAt` stops new metrics from choosing it (existing ones report `legacyAt`); `disabledAt` disables every linked metric.',
    alsoStatus: { status: 201, when: 'the model is new' },
    example: {
      request: { provider: 'openai', providerModelId: 'gpt-4o-mini-2024-07-18', creditsPerEvaluation: 1 },
      response: model,
    },
  },

  // specifications
  'specifications/create': {
    summary: 'Create a specification',
    description:
      'A capability, inability or policy of a product. `testType` is required for a POLICY and forbidden otherwise; `testVariant` is required when `testType` is QUALITY or RED_TEAMING.',
    errors: { 403: '`productId` names another organization’s product' },
    example: {
      request: { productId: PRODUCT, description: specification.description, type: 'CAPABILITY' },
      response: { ...specification, metricIds: [] },
    },
  },
  'specifications/list': {
    summary: 'List specifications',
    description: list(
      'specifications',
      'Filters: `productIds`, `types`, `testTypes`, `description` (substring), `metricIds`.',
    ),
    example: { response: [specification] },
  },
  'specifications/get': {
    summary: 'Read a specification',
    description: read('specification'),
    record: 'specification',
    example: { response: specification },
  },
  'specifications/update': {
    summary: 'Update a specification',
    description: patch(
      'specification',
      '`description`, `type`, `testType`, `testVariant` (with the create rules); `productId` is immutable and links change through `/specifications/{id}/metrics`',
    ),
    record: 'specification',
    example: {
      request: { description: 'explains every invoice line' },
      response: { ...specification, description: 'explains every invoice line' },
    },
  },
  'specifications/delete': {
    summary: 'Delete a specification',
    description: softDelete('specification', 'Its metric links go with it.'),
    record: 'specification',
    example: { response: deleted(SPEC) },
  },
  'specifications/link-metrics': {
    summary: 'Link metrics to a specification',
    description:
      'Links 1–100 metrics (the caller’s or predefined, not deleted); linking a linked metric again is no change. Answers every linked metric id.',
    record: 'specification',
    example: { request: { metricIds: [METRIC] }, response: { specificationId: SPEC, metricIds: [METRIC] } },
  },
  'specifications/unlink-metrics': {
    summary: 'Unlink metrics from a specification',
    description: 'Removes the links to 1–100 metrics. Answers the metric ids still linked.',
    record: 'specification',
    example: { request: { metricIds: [METRIC] }, response: { specificationId: SPEC, metricIds: [] } },
  },
  'specifications/list-metrics': {
    summary: 'List a specification’s metrics',
    description: 'The metrics linked to the specification, with their number in `X-Total-Count`.',
    record: 'specification',
    example: { response: [metric] },
  },

  // tests and test cases
  'tests/create': {
    summary: 'Create a test (dataset)',
    description:
      'Creates a test. With `uri` (an uploaded CSV, see `/storage/generate-put-presigned-url`) the file is imported into test cases: the test is SUCCESS with its cases, or FAILED with the line and the reason in `error`, nothing half-written. A `uri` outside the organization’s storage is a 403. Without `uri` the test is generated: PENDING at once, then a generation job writes at most `maxTestCases` cases (default 50 for QUALITY and RED_TEAMING, at most 1000; 20 for SCENARIOS, at most 100) and the test becomes SUCCESS, or FAILED with `error` (cases written so far stay). QUALITY reads `groundTruthUri` (text, Markdown, JSON, CSV, HTML, PDF up to 20 MB) or the product; RED_TEAMING writes attacks per variant transformed by each strategy (`original`, `base64`, `hex`, `rot13`, `leetspeak`, `homoglyph`, `morse`, `zero_width` in code; the others by the generator); SCENARIOS writes goals, personas and stopping criteria for the simulated user (strategies `written`, `spoken`).',
    errors: { 403: 'a storage URI or `sourceTestId` names another organization’s object' },
    example: {
      request: {
        productId: PRODUCT,
        name: test.name,
        type: 'QUALITY',
        uri: test.uri,
        specificationId: SPEC,
        metadata: test.metadata,
      },
      response: test,
    },
  },
  'tests/list': {
    summary: 'List tests',
    description: list(
      'tests',
      'Filters: `productIds`, `testCaseIds`, `versionIds` (tests with sessions on those versions), `types`, `specificationIds`, `statuses`, `hasLiveSpecification`, `hasEvaluations`, `hasTraces`.',
    ),
    example: { response: [test] },
  },
  'tests/extend': {
    summary: 'Generate more cases for a test',
    description:
      'A SUCCESS generated test with `isExtendable` (a QUALITY test with a ground-truth document) becomes EXTENDING and gets up to `count` (1–1000, default 10) new cases, possibly past its first `maxTestCases`; then SUCCESS again (or FAILED, keeping what was written). A test in another state, or not extendable, is a 409. The body may be omitted.',
    record: 'test',
    errors: { 409: 'the test is not SUCCESS or not extendable' },
    example: {
      request: { count: 10 },
      response: {
        ...test,
        type: 'QUALITY',
        uri: null,
        groundTruthUri:
          's3://eval-platform-data/orgs/org_01JDA0Q8X3V9N2C4T6W8Y0ZB1Q/uploads/01JDA1T9Z1X3C5V7B9N1M3Q5WE/handbook.pdf',
        status: 'EXTENDING',
        isExtendable: true,
      },
    },
  },
  'tests/augment': {
    summary: 'Augment a test from its cases',
    description:
      'A SUCCESS test with cases (uploaded ones included) becomes AUGMENTING and gets up to `count` (1–1000, default 10) new cases written from its existing ones, marked `isAugmented: true`; then SUCCESS again (or FAILED, keeping what was written). Another state, or a test without cases, is a 409. The body may be omitted.',
    record: 'test',
    errors: { 409: 'the test is not SUCCESS or has no cases' },
    example: { request: { count: 5 }, response: { ...test, status: 'AUGMENTING' } },
  },
  'tests/cancel': {
    summary: 'Cancel a test’s generation',
    description:
      'A PENDING, EXTENDING or AUGMENTING test becomes CANCELLED; its job stops at its next step and the cases written so far stay. Another state is a 409.',
    record: 'test',
    errors: { 409: 'the test is not PENDING, EXTENDING or AUGMENTING' },
    example: { response: { ...redTeam, status: 'CANCELLED' } },
  },
  'tests/get': {
    summary: 'Read a test',
    description: read('test'),
    record: 'test',
    example: { response: test },
  },
  'tests/update': {
    summary: 'Rename a test or change its metadata',
    description: patch('test', '`name` and `metadata`'),
    record: 'test',
    example: {
      request: { name: 'billing questions (October)' },
      response: { ...test, name: 'billing questions (October)' },
    },
  },
  'tests/delete': {
    summary: 'Delete a test',
    description: softDelete('test'),
    record: 'test',
    example: { response: deleted(TEST) },
  },
  'test-cases/create': {
    summary: 'Add a test case',
    description: 'Adds one case to a test. Fields too large for one item are kept in storage and returned whole.',
    errors: { 403: '`testId` names another organization’s test' },
    example: {
      request: { testId: TEST, input: testCase.input, expectedOutput: testCase.expectedOutput },
      response: testCase,
    },
  },
  'test-cases/list': {
    summary: 'List test cases',
    description: list('test cases', '`testIds` is required.'),
    errors: { 403: '`testIds` names another organization’s test', 404: '`testIds` names no test' },
    example: { response: [testCase] },
  },
  'test-cases/get': {
    summary: 'Read a test case',
    description: read('test case'),
    record: 'test case',
    example: { response: testCase },
  },
  'test-cases/delete': {
    summary: 'Delete a test case',
    description: softDelete('test case'),
    record: 'test case',
    example: { response: deleted(TCASE) },
  },

  // storage
  'storage/upload-url': {
    summary: 'Get an upload URL',
    description:
      'A 15-minute presigned PUT URL for `orgs/<organization>/uploads/<ulid>/<fileName>`, and the storage URI to send in `uri` fields (for instance `POST /tests`). `contentType` must be an accepted upload type.',
    example: {
      response: {
        url: 'https://eval-platform-data.s3.eu-west-1.amazonaws.com/orgs/org_01JDA0Q8X3V9N2C4T6W8Y0ZB1Q/uploads/01JDA1T9Z1X3C5V7B9N1M3Q5WE/cases.csv?X-Amz-Signature=…',
        uri: test.uri!,
        key: 'orgs/org_01JDA0Q8X3V9N2C4T6W8Y0ZB1Q/uploads/01JDA1T9Z1X3C5V7B9N1M3Q5WE/cases.csv',
        expiresInSeconds: 900,
      },
    },
  },
  'storage/resolve': {
    summary: 'Get a download URL for a storage URI',
    description:
      'A 1-hour presigned GET URL for an object under the organization’s prefix (a recording, an uploaded file). Another prefix is a 403, another bucket a 400, a missing object a 404.',
    errors: { 403: 'the URI names an object outside the organization’s storage', 404: 'no object at the URI' },
    example: {
      response: {
        url: 'https://eval-platform-data.s3.eu-west-1.amazonaws.com/orgs/org_01JDA0Q8X3V9N2C4T6W8Y0ZB1Q/uploads/01JDA1T9Z1X3C5V7B9N1M3Q5WE/cases.csv?X-Amz-Signature=…',
        uri: test.uri!,
        expiresInSeconds: 3600,
      },
    },
  },

  // sessions, turns, spans
  'sessions/create': {
    summary: 'Start a session',
    description:
      'Starts a conversation on a version: a production session without `testCaseId`, or a test session for a case. Turns are added with `POST /inferenceResults`; a production session watched by a monitor is scored once it is closed. `recordingUri` names the call’s stereo recording, uploaded first (`GET /storage/generate-put-presigned-url`): a WAV with the agent left and the user right, 8 or 16 kHz, 16-bit PCM, μ-law or A-law, up to 2 hours. Its header is checked at once (400 naming why it cannot be read); the session answers `voice: null`, and a job computes its voice figures (docs/voice.md).',
    errors: { 403: '`versionId`, `testCaseId` or `recordingUri` names another organization’s record' },
    example: {
      request: { versionId: VERSION, customId: 'ticket-4711', metadata: { channel: 'web' } },
      response: { ...session, turnCount: 0, lastTurnAt: null },
    },
  },
  'sessions/list': {
    summary: 'List sessions',
    description: list(
      'sessions',
      'One of `versionIds`, `testIds`, `testCaseIds`, `customIds`, `runIds` is required; also `isProduction`, `statuses`. `runIds` naming another organization’s run is a 403.',
    ),
    errors: { 403: '`runIds` names another organization’s run', 404: '`runIds` names no run' },
    example: { response: [session] },
  },
  'sessions/get': {
    summary: 'Read a session',
    description: read('session'),
    record: 'session',
    example: { response: session },
  },
  'sessions/update': {
    summary: 'Update or close a session',
    description: patch(
      'session',
      '`status` (COMPLETED or FAILED: closes the session), `error`, `stoppingReason`, `metadata`, `context`, `customId`, `recordingUri` (checked as on `POST /sessions`: 400 naming why it cannot be read, 403 another organization’s object; another recording drops the voice figures and computes new ones, the same one keeps them, null removes them)',
    ),
    record: 'session',
    example: {
      request: { status: 'COMPLETED', stoppingReason: 'resolved' },
      response: { ...session, status: 'COMPLETED', stoppingReason: 'resolved', closedAt: LATER },
    },
  },
  'sessions/delete': {
    summary: 'Delete a session',
    description: softDelete('session'),
    record: 'session',
    example: { response: deleted(SESSION) },
  },
  'sessions/metric-compatibility': {
    summary: 'Which metrics can score a session',
    description:
      'One entry per candidate metric, ordered linked → matching → none, compatible first, then by name; `incompatibilityReason` says what is missing. `limit` 1–500 (100).',
    paged: false,
    record: 'session',
    example: {
      response: [
        {
          id: METRIC,
          name: 'politeness',
          isCompatible: true,
          relevance: 'linked',
          source: 'PARTIAL_PROMPT',
          description: 'Is the agent polite?',
          incompatibilityReason: null,
        },
        {
          id: 'met_answer_relevancy',
          name: 'answer_relevancy',
          isCompatible: false,
          relevance: 'none',
          source: 'DEEPEVAL',
          description: null,
          incompatibilityReason: 'needs expected_output, which the session has no test case for',
        },
      ],
    },
  },
  'inference-results/create': {
    summary: 'Add a turn to a session',
    description:
      'Appends a turn (user input, agent output, retrieval context, latency, usage, cost) to an open session; texts up to 250,000 characters each.',
    errors: {
      403: '`sessionId` names another organization’s session',
      409: 'too many concurrent writers on the session; retry',
    },
    example: {
      request: {
        sessionId: SESSION,
        input: turn.input,
        output: turn.output,
        retrievalContext: turn.retrievalContext,
        latencyMs: 840,
      },
      response: turn,
    },
  },
  'inference-results/batch': {
    summary: 'Add a conversation to a session',
    description:
      'Folds 1–200 `{role, content}` messages into turns (a user message and the assistant answers after it) and appends them, all or nothing.',
    errors: {
      403: '`sessionId` names another organization’s session',
      409: 'too many concurrent writers on the session; retry',
    },
    example: {
      request: {
        sessionId: SESSION,
        messages: [
          { role: 'user', content: turn.input },
          { role: 'assistant', content: turn.output },
        ],
      },
      response: [
        {
          ...turn,
          latencyMs: null,
          retrievalContext: [],
          usage: { inputTokens: 0, outputTokens: 0, cacheReadInputTokens: 0 },
          cost: null,
        },
      ],
    },
  },
  'inference-results/list': {
    summary: 'List turns',
    description: list('turns', '`sessionIds` is required; turns come in their order within the session.'),
    errors: { 403: '`sessionIds` names another organization’s session', 404: '`sessionIds` names no session' },
    example: { response: [turn] },
  },
  'inference-results/get': {
    summary: 'Read a turn',
    description: read('turn'),
    record: 'inference result',
    example: { response: turn },
  },
  'inference-results/update': {
    summary: 'Complete a turn',
    description: patch('turn', '`output`, `retrievalContext`, `latencyMs`, `usage`, `cost`'),
    record: 'inference result',
    errors: { 409: 'the turn changed while the request ran; retry' },
    example: { request: { output: turn.output, latencyMs: 840 }, response: turn },
  },
  'traces/create': {
    summary: 'Record a span',
    description:
      'Records a step of a turn (tool call, retrieval, model call…). A client may choose the `trace_…` id; a duplicate is a 409. Fields over 64 KB are kept in storage and returned whole.',
    errors: { 403: '`inferenceResultId` names another organization’s turn', 409: 'a span with that id already exists' },
    example: {
      request: {
        inferenceResultId: TURN,
        name: span.name,
        type: 'RETRIEVER',
        inputData: span.inputData,
        outputData: span.outputData,
        startTime: span.startTime,
        endTime: span.endTime,
        latencyMs: 120,
      },
      response: span,
    },
  },
  'traces/batch': {
    summary: 'Record spans',
    description: 'Records 1–100 spans, all or nothing; a duplicate id is a 409.',
    errors: {
      403: 'an `inferenceResultId` names another organization’s turn',
      409: 'a span with one of the ids already exists',
    },
    example: {
      request: {
        spans: [{ inferenceResultId: TURN, name: span.name, type: 'RETRIEVER', outputData: span.outputData }],
      },
      response: [span],
    },
  },
  'traces/list': {
    summary: 'List spans',
    description: list(
      'spans',
      '`sessionIds` or `inferenceResultIds` is required; also `types`, `names`, `fromStartTime`, `toStartTime`. Ordered by start time.',
    ),
    errors: {
      403: '`sessionIds` or `inferenceResultIds` names another organization’s record',
      404: '`sessionIds` or `inferenceResultIds` names no record',
    },
    example: { response: [span] },
  },
  'traces/get': {
    summary: 'Read a span',
    description: `${read('span')} An id that does not start with \`trace_\` is a 404.`,
    record: 'span',
    example: { response: span },
  },
  'traces/delete': {
    summary: 'Delete a span',
    description: softDelete('span'),
    record: 'span',
    example: { response: deleted(SPAN) },
  },

  // evaluations
  'evaluations/create': {
    summary: 'Evaluate a session',
    description:
      'Creates one evaluation per metric for the session (or one turn with `inferenceResultId`): deterministic metrics are scored at once, LLM-judged ones are queued (PENDING), HUMAN_EVALUATION ones wait for a human score (PENDING_HUMAN) unless `scores` gives it.',
    errors: {
      403: '`sessionId`, `inferenceResultId` or a metric id names another organization’s record',
      409: 'the records changed while the request ran; retry',
    },
    example: {
      request: { sessionId: SESSION, metricIds: [METRIC] },
      response: [{ ...evaluation, status: 'PENDING', score: null, reason: null, creditsUsed: 0, evaluatedAt: null }],
    },
  },
  'evaluations/list': {
    summary: 'List evaluations',
    description: list('evaluations', '`sessionIds` (1–50) is required; also `metricIds`, `statuses`.'),
    errors: { 403: '`sessionIds` names another organization’s session', 404: '`sessionIds` names no session' },
    example: { response: [evaluation] },
  },
  'evaluations/get': {
    summary: 'Read an evaluation',
    description: read('evaluation'),
    record: 'evaluation',
    example: { response: evaluation },
  },
  'evaluations/update': {
    summary: 'Give a human score',
    description:
      'Sets `humanScore` (0–1) and `humanReason` of an evaluation (HUMAN_EVALUATION metrics, or a human second opinion).',
    record: 'evaluation',
    example: {
      request: { humanScore: 0.5, humanReason: 'polite but curt' },
      response: { ...evaluation, humanScore: 0.5, humanReason: 'polite but curt' },
    },
  },
  'evaluations/retry': {
    summary: 'Retry a failed evaluation',
    description: 'Queues a FAILED evaluation again (PENDING). Any other status is a 409.',
    record: 'evaluation',
    errors: { 409: 'the evaluation is not FAILED' },
    example: { response: { ...evaluation, status: 'PENDING', score: null, reason: null, evaluatedAt: null } },
  },

  // runs
  'runs/create': {
    summary: 'Start a run',
    description:
      'The service calls the version’s agent for every selected test case (`testId` with optional `testCaseIds`, or `specificationIds`), `repetitions` times each (1–10, default 1; each time its own session, with `repetition`), then scores each session with the selected metrics (`metricIds`, or the specifications’ linked metrics); `threshold` (0–1, default 0.5) is the score a case must reach to pass. A PHONE run may take `bargeInAfterMs` (100–10,000; any other channel is a 400): at every turn after the first but the last, once the agent has spoken about that long, the service interrupts it with its next message and measures how long the agent took to go quiet (each turn’s `metadata.bargeIn`, the run’s `voice.bargeInRecovery`; a test case’s `context` JSON `bargeInAfterMs` wins, null for none). Answers the PENDING run with `progress.total` = cases × repetitions (at most 5,000 sessions; more is a 400 naming both numbers); nothing to run or score, a test that is not SUCCESS or a version without a conversation connection is a 400 naming the field.',
    errors: { 403: '`versionId`, `testId`, a specification or a metric id names another organization’s record' },
    example: {
      request: { versionId: VERSION, testId: TEST, name: 'nightly billing run', repetitions: 3, threshold: 0.7 },
      response: {
        ...run,
        repetitions: 3,
        threshold: 0.7,
        status: 'PENDING',
        progress: { total: 6, pending: 6, running: 0, completed: 0, failed: 0 },
        metrics: [],
        startedAt: null,
      },
    },
  },
  'runs/list': {
    summary: 'List runs',
    description: list('runs', 'Filters: `productIds`, `versionIds`, `testIds`, `statuses`.'),
    example: { response: [run] },
  },
  'runs/get': {
    summary: 'Read a run',
    description:
      'A run with its live `progress` and, per metric, the evaluated, failed and skipped counts, the mean score and its 95% interval (from 30 scored sessions), and once the run has finished `passRate` (the share of SUCCESS evaluations scoring at least `threshold`) and, with `repetitions` > 1, `passAllK` (pass^k: the share of cases passing in every repetition) and `passAnyK` (pass@k: in at least one). Each metric also has `labels` (the run’s sessions a person labelled in a review queue) and `corrected`: the judge’s score corrected with the labels of randomly sampled items (prediction-powered inference, PPI++): λ = clip(Cov_L(y, f)/((1 + n/N)·Var(f)), 0, 1), score = λ·mean_U(f) + mean_L(y − λf), its 95% interval and `effectiveLabels` (how many labels alone would give the same precision); null with fewer than 10 sampled labelled sessions or fewer than 2 others. Lists leave `labels` and `corrected` out. A PHONE run has `voice`: the p50 and p95 (nearest rank) of its sessions’ voice figures and its interruption rate, from when it finishes, brought up to date as late call recordings are analysed.',
    record: 'run',
    example: {
      response: {
        ...run,
        metrics: run.metrics.map((m) => ({
          ...m,
          labels: 12,
          corrected: {
            score: 0.81,
            interval: { lower: 0.72, upper: 0.9 },
            labeled: 12,
            unlabeled: 388,
            lambda: 0.64,
            effectiveLabels: 31.5,
          },
        })),
      },
    },
  },
  'runs/cancel': {
    summary: 'Cancel a run',
    description:
      'Cancels a PENDING or RUNNING run: sessions with no turn yet become FAILED (`stoppingReason: "cancelled"`), sessions mid-conversation stop after their current call. A finished run is a 409.',
    record: 'run',
    errors: { 409: 'the run is already COMPLETED, FAILED or CANCELLED' },
    example: { response: { ...run, status: 'CANCELLED', finishedAt: LATER } },
  },

  'runs/comparison': {
    summary: 'Compare a run with a base run',
    description:
      'Compares two finished runs of the organization, paired by `testCaseId`: a case’s score for a metric is the mean of its SUCCESS evaluations over its sessions in the run (every repetition). For each metric scored in both runs (by name, then id): `n` paired cases, `onlyInBase`/`onlyInRun`, the mean scores over the pairs, `difference` (the mean paired difference), its `standardError`, a 95% `confidenceInterval` (Student t, n − 1 degrees of freedom), the two-sided paired t-test `pValue`, Holm’s `adjustedPValue` over this comparison’s metrics, the `minimumDetectableEffect` at 80% power and a `verdict` (`improved` or `regressed` when the adjusted p is below 0.05, `not_enough_data` under 2 pairs). The top `verdict` is `regressed` when any metric regressed. `baseRunId` is required.',
    record: 'run',
    errors: {
      403: '`baseRunId` names another organization’s run',
      404: '`baseRunId` names no run',
      409: 'either run is PENDING or RUNNING (the message names which)',
    },
    example: { response: comparison },
  },
  'runs/comparison-cases': {
    summary: 'List the compared cases',
    description:
      'One row per paired test case and compared metric of `GET /runs/{id}/comparison` (same `baseRunId`, same refusals): the case’s input (first 200 characters), both scores, `difference` (score − baseScore) and the sessions behind each. `metricIds` keeps those metrics; `changed` keeps `regressed` (difference < 0), `improved` (> 0), `unchanged` (= 0) or `any` (the default); `sort` is `difference:asc` (the default: the worst regressions first), `difference:desc`, `testCaseId:asc` or `testCaseId:desc`, ties by `testCaseId` ascending; `limit` 1–1000 (default 100) and `offset` page it, the number of rows in `X-Total-Count`.',
    record: 'run',
    errors: {
      403: '`baseRunId` names another organization’s run',
      404: '`baseRunId` names no run',
      409: 'either run is PENDING or RUNNING (the message names which)',
    },
    example: { response: [comparisonCase] },
  },

  'runs/junit': {
    summary: 'Read a run as JUnit XML',
    description:
      'A finished run as a JUnit document (`application/xml`) for a CI server, which never looks green by accident. A run that FAILED (or was CANCELLED) opens with a `<testsuite name="run">` holding one `<testcase name="run">` whose `<error>` says why (the run’s `error`, else how many sessions completed and the most frequent session error). A `<testsuite name="sessions">` holds every session of the run as a `<testcase>` (`classname` the test’s name, `name` the first 100 characters of the case input, with its repetition when the run has several), with an `<error>` giving the session’s `error` when it FAILED: a run whose sessions all failed has as many errors as sessions. Then a `<testsuite>` per metric of the run (named after it) with a `<testcase>` per test case that metric scored: a case whose score (the mean of its SUCCESS evaluations over its sessions) is below the run’s `threshold` has a `<failure>` giving the score and the reason; a case with no SUCCESS evaluation but a FAILED one has an `<error>`. With `baseRunId`, a `<testsuite name="comparison">` holds a test per compared metric, failing when its verdict is `regressed` (the difference, its interval and the adjusted p). The `tests`, `failures` and `errors` counts are exact; every text is escaped by an XML writer.',
    record: 'run',
    errors: {
      403: '`baseRunId` names another organization’s run',
      404: '`baseRunId` names no run',
      409: 'the run (or the base run) is PENDING or RUNNING (the message names which)',
    },
    example: { response: junit },
  },

  // monitors
  'monitors/create': {
    summary: 'Create a monitor',
    description:
      'Scores a sample (`samplingPercentage`, > 0 to 100) of the product’s closed production sessions with the bound metric families, within `monthlyCreditCap`. `filterQuery`/`filterTarget` keep only matching sessions, `excludeQuery`/`excludeTarget` drop sessions; `status` may be ACTIVE or PAUSED. Another organization’s metric family is a 403.',
    errors: {
      403: '`productId` or `versionId` names another organization’s record, or a metric family belongs to another organization',
    },
    example: {
      request: {
        productId: PRODUCT,
        name: monitor.name,
        metricGroupIds: [GROUP],
        samplingPercentage: 25,
        monthlyCreditCap: 500,
        filterQuery: 'refund, charge',
        filterTarget: 'INPUT',
      },
      response: monitor,
    },
  },
  'monitors/list': {
    summary: 'List monitors',
    description: list('monitors', 'Filters: `productIds`, `versionIds`, `statuses`, `metricGroupIds`.'),
    example: { response: [monitor] },
  },
  'monitors/get': {
    summary: 'Read a monitor',
    description: read('monitor'),
    record: 'monitor',
    example: { response: monitor },
  },
  'monitors/update': {
    summary: 'Update a monitor',
    description: patch(
      'monitor',
      'every create field but `productId`; `status` accepts ACTIVE or PAUSED only (CAPPED, NO_CREDITS and FAILING are set by the system: 400)',
    ),
    record: 'monitor',
    errors: { 403: 'a metric family belongs to another organization' },
    example: { request: { status: 'PAUSED' }, response: { ...monitor, status: 'PAUSED', statusUserAt: LATER } },
  },
  'monitors/delete': {
    summary: 'Delete a monitor',
    description: softDelete('monitor', 'It stops scoring at once.'),
    record: 'monitor',
    example: { response: deleted(MONITOR) },
  },
  'monitors/results': {
    summary: 'Read a monitor’s results',
    description:
      'Over the last `days` (1–90, default 7): per bound family a daily sampling-weighted score series and a headline, each with its 95% interval from 30 scored sessions (`collectingData` below), the worst family, revision and sampling markers, the cycle’s spend against the cap, the newest 200 scored and 100 waiting sessions. Computed only from the monitor’s own evaluations.',
    record: 'monitor',
    example: { response: monitorResults },
  },

  // alert rules and alerts
  'alert-rules/create': {
    summary: 'Add an alert rule to a monitor',
    description:
      'The scanner opens an alert when, over the trailing `window` (15m, 1h, 6h or 24h), at least `minSessions` sessions were scored and the sampling-weighted score of the family `metricGroupId` (one the monitor binds) is below `below` (0–1); it resolves when the score is back at or above `below`. With `confidence: "interval"` (default `"point"`) it opens only when the window has at least 30 scored sessions (the results route’s interval) and the upper end of the score’s 95% interval is below `below`: a dip the sample cannot tell from noise opens nothing; it resolves as a point rule does. Each opening and resolution is sent once as `alert.opened` / `alert.resolved`, the alert with its `score`, `interval` and `scoredSessions` over the window.',
    record: 'monitor',
    errors: { 409: 'the monitor already has 20 alert rules' },
    example: {
      request: { metricGroupId: GROUP, window: '1h', below: 0.7, minSessions: 20, confidence: 'interval' },
      response: alertRule,
    },
  },
  'alert-rules/list': {
    summary: 'List a monitor’s alert rules',
    description: list('alert rules of the monitor', 'Filters: `ids`, `fromCreatedAt`, `toCreatedAt`.'),
    record: 'monitor',
    example: { response: [alertRule] },
  },
  'alert-rules/get': {
    summary: 'Get an alert rule',
    description:
      'One rule of the monitor, with `openAlertId` while its alert is open; a deleted rule is still readable, with its `deletedAt`.',
    record: 'monitor',
    example: { response: alertRule },
  },
  'alert-rules/delete': {
    summary: 'Delete an alert rule',
    description:
      'Deletes the rule; its open alert, if any, is resolved (`resolution: "rule_deleted"`) and sent as `alert.resolved`.',
    record: 'monitor',
    errors: { 409: 'the rule changed while the request ran (retry)' },
    example: { response: deleted(ALERT_RULE) },
  },
  'monitors/alerts': {
    summary: 'List a monitor’s alerts',
    description: list(
      'alerts of the monitor, open and resolved,',
      'Filters: `ids`, `statuses` (OPEN, RESOLVED), `ruleIds`, `fromCreatedAt`, `toCreatedAt`.',
    ),
    record: 'monitor',
    example: { response: [alert] },
  },

  // human review
  'review-queues/create': {
    summary: 'Create a review queue',
    description:
      'A queue of a product’s sessions for people to label against `metricIds` (1–10 live metrics the organization sees, any source). An item is DONE once `reviewersPerItem` (1–5, default 1) distinct reviewers labelled every metric of the queue. `instructions` (≤ 10,000 characters) are shown to each reviewer.',
    example: {
      request: {
        productId: PRODUCT,
        name: reviewQueue.name,
        metricIds: [METRIC],
        reviewersPerItem: 2,
        instructions: reviewQueue.instructions,
      },
      response: { ...reviewQueue, counts: { items: 0, pending: 0, done: 0 } },
    },
  },
  'review-queues/list': {
    summary: 'List review queues',
    description: list(
      'review queues',
      'Filters: `ids`, `productIds`, `name`, `names`, `fromCreatedAt`, `toCreatedAt`; sort by `createdAt`, `name`, `productId`, `reviewersPerItem`.',
    ),
    example: { response: [reviewQueue] },
  },
  'review-queues/get': {
    summary: 'Read a review queue',
    description: `${read('review queue')} \`counts\` holds its items, PENDING and DONE.`,
    record: 'review queue',
    example: { response: reviewQueue },
  },
  'review-queues/update': {
    summary: 'Update a review queue',
    description: patch(
      'review queue',
      '`name`, `instructions`, `reviewersPerItem` (applies to every item at once: items that now have enough reviewers become DONE, DONE items that no longer have enough go back to PENDING)',
    ),
    record: 'review queue',
    example: { request: { reviewersPerItem: 1 }, response: { ...reviewQueue, reviewersPerItem: 1 } },
  },
  'review-queues/delete': {
    summary: 'Delete a review queue',
    description: softDelete('review queue', 'Labels already given still count in agreement and corrected scores.'),
    record: 'review queue',
    example: { response: deleted(REVIEW_QUEUE) },
  },
  'review-queues/add-items': {
    summary: 'Add sessions to a review queue',
    description:
      'Takes exactly one of: `{sessionIds}` (1–100 sessions picked by hand, `origin: "picked"`); `{runId, sampleSize, seed?}` (a uniform random sample without replacement of the run’s COMPLETED sessions not yet in the queue, `origin: "sample"`); `{monitorId, sampleSize, from?, to?, seed?}` (the same over the monitor’s scored production sessions, by default its last 7 days). `sampleSize` is 1–1,000; the same `seed` over the same sessions draws the same sample (the answer gives the seed used). Sessions must belong to the queue’s product (400 naming the first that does not); a session already in the queue is skipped. Only sampled items correct a run’s score (`GET /runs/{id}`): a hand-picked set is not a random sample.',
    successStatus: 201,
    record: 'review queue',
    example: {
      request: { runId: RUN, sampleSize: 40, seed: 'week-47' },
      response: { added: 1, skipped: 0, seed: 'week-47', items: [{ ...reviewItem, labels: [] }] },
    },
  },
  'review-queues/list-items': {
    summary: 'List a review queue’s items',
    description:
      'The queue’s items, oldest first, each with its labels: a JSON array with the number of matches in `X-Total-Count`. Filters: `status` (PENDING, DONE), `reviewer` (the items that reviewer labelled); `limit` 1–1000 (default 100), `offset`.',
    record: 'review queue',
    example: { response: [reviewItem] },
  },
  'review-queues/next': {
    summary: 'Take the next item to label',
    description:
      'The oldest PENDING item `reviewer` has not labelled every metric of, with what a reviewer needs: the session’s turns (input, output, retrieval context), its context, the test case’s expected output, the queue’s instructions and metrics, and how many items are left for this reviewer. It never carries the judge’s scores or reasons: a reviewer who sees them anchors on them. 204 with no body when nothing is left for this reviewer. `reviewer` is a name the client gives (1–128 characters), not an API key.',
    record: 'review queue',
    noContent: 'no item is left for this reviewer',
    example: { request: { reviewer: 'ana' }, response: reviewTask },
  },
  'review-queues/label': {
    summary: 'Label an item',
    description:
      'Replaces `reviewer`’s labels of the given metrics on the item (each `metricId` one of the queue’s, `score` 0–1, `reason` ≤ 10,000 characters) and answers the item. It is DONE once `reviewersPerItem` distinct reviewers labelled every metric of the queue.',
    record: 'review queue',
    example: {
      request: { reviewer: 'ana', labels: [{ metricId: METRIC, score: 1, reason: 'right rule, polite' }] },
      response: reviewItem,
    },
  },
  'metrics/agreement': {
    summary: 'How far a metric’s judge agrees with people',
    description:
      'Over the sessions with a SUCCESS evaluation of the metric and at least one human label of it (any review queue; `productId` keeps one product’s, `from`/`to` the labels given in that range): per session the judge score f (mean of its SUCCESS evaluations) and the human score y (mean of its labels). `n`, `judgeMean`, `humanMean`; `bias` = mean(f − y) with its 95% interval (null when n < 2); `meanAbsoluteError`; Spearman’s ρ (average ranks; null when n < 3 or a side is constant) with Fisher’s interval tanh(atanh ρ ± 1.959964/√(n − 3)); when every score is 0 or 1 (`binary`), Cohen’s κ of the judge against the human verdict (y ≥ 0.5) with κ ± 1.959964·√(p_o(1 − p_o)/(n(1 − p_e)²)) and the judge’s true positive and negative rates; `reviewers`: Krippendorff’s α among the labels of sessions labelled twice or more (nominal when binary, else interval). `verdict`: `calibrated` when n ≥ 30 and the lower end of κ’s (binary) or ρ’s interval is ≥ 0.6, `not_calibrated` when its upper end is < 0.6, else `not_enough_data`.',
    record: 'metric',
    example: { response: agreement },
  },

  // webhooks
  'webhooks/create': {
    summary: 'Create a webhook endpoint',
    description:
      'Subscribes an http(s) URL to `events` (run.completed, run.failed, test.generated, test.failed, monitor.status_changed, alert.opened, alert.resolved, ping). The answer carries the signing secret (`whsec_` + base64 of 32 random bytes) this once; it is never shown again. Deliveries follow Standard Webhooks: headers `webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, body `{type, timestamp, data}`. A literal private, loopback or link-local address is refused (400); names are checked when each delivery resolves them.',
    errors: { 409: 'the organization already has 20 webhook endpoints' },
    example: {
      request: { url: webhook.url, events: webhook.events, description: webhook.description },
      response: { ...webhook, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw7VBzaOSqP9s=' },
    },
  },
  'webhooks/list': {
    summary: 'List webhook endpoints',
    description: list('webhook endpoints', 'Filters: `ids`, `url`, `events`, `statuses` (ENABLED, DISABLED).'),
    example: { response: [webhook] },
  },
  'webhooks/get': {
    summary: 'Read a webhook endpoint',
    description: `${read('webhook endpoint')} The secret is never part of it.`,
    record: 'webhook',
    example: { response: webhook },
  },
  'webhooks/update': {
    summary: 'Update a webhook endpoint',
    description: patch(
      'webhook endpoint',
      '`url`, `events`, `description`, `status` (ENABLED turns a disabled endpoint back on and clears its reason; DISABLED stops deliveries)',
    ),
    record: 'webhook',
    example: {
      request: { status: 'DISABLED' },
      response: { ...webhook, status: 'DISABLED', disabledReason: 'disabled by a user', disabledAt: LATER },
    },
  },
  'webhooks/delete': {
    summary: 'Delete a webhook endpoint',
    description: softDelete('webhook endpoint', 'Pending deliveries are abandoned.'),
    record: 'webhook',
    example: { response: deleted(WEBHOOK) },
  },
  'webhooks/test': {
    summary: 'Send a ping to a webhook endpoint',
    description:
      'Sends a signed `ping` to the endpoint now (whatever its events, even when disabled) and answers its delivery with that first attempt; a failed attempt is retried on the schedule like any delivery (`GET /webhooks/{id}/deliveries`).',
    record: 'webhook',
    example: { response: delivery },
  },
  'webhooks/deliveries': {
    summary: 'List an endpoint’s deliveries',
    description: list(
      'deliveries of the endpoint, newest first,',
      'Each has its attempts (status, response code, duration) and the next attempt: a non-2xx answer or a timeout (10 s) is retried after 5 s, 5 min, 30 min, 2 h, 5 h and 10 h; an endpoint failing for 5 days is disabled. Filters: `ids`, `statuses` (PENDING, SUCCEEDED, FAILED), `types`, `fromCreatedAt`, `toCreatedAt`.',
    ),
    record: 'webhook',
    example: { response: [delivery] },
  },

  // OpenTelemetry ingestion
  'otel/export-traces': {
    summary: 'Export traces (OTLP/HTTP)',
    description:
      'Takes an OTLP/HTTP `ExportTraceServiceRequest` in `application/x-protobuf` or `application/json`, optionally `Content-Encoding: gzip`, and answers an `ExportTraceServiceResponse` in the same encoding. Each span is placed by its attributes (span first, then resource): the session by `session.id`, `gen_ai.conversation.id` or `thread_id` (its `customId`; the first span of an unknown one creates it, production unless `platform.test_case.id` is set, and monitors attach as for `POST /sessions`), the version by `platform.version.id`; one trace is one turn (input, output, usage and latency from the root span), every span a span `trace_<16 hex of its span id>` typed from `openinference.span.kind` or `gen_ai.operation.name`. Spans that cannot be placed are counted in `partialSuccess.rejectedSpans` with the reason; a span seen before is accepted and changes nothing. Limits: 5 MiB decoded and 1000 spans (413).',
    example: {
      request: {
        resourceSpans: [
          {
            resource: { attributes: [{ key: 'service.name', value: { stringValue: 'support-agent' } }] },
            scopeSpans: [
              {
                scope: { name: 'support-agent' },
                spans: [
                  {
                    traceId: '5b8efff798038103d269b633813fc60c',
                    spanId: 'eee19b7ec3c1b174',
                    name: 'invoke_agent support',
                    kind: 1,
                    startTimeUnixNano: '1763630100000000000',
                    endTimeUnixNano: '1763630101250000000',
                    attributes: [
                      { key: 'session.id', value: { stringValue: 'chat-8841' } },
                      { key: 'platform.version.id', value: { stringValue: VERSION } },
                      { key: 'gen_ai.operation.name', value: { stringValue: 'invoke_agent' } },
                      { key: 'input.value', value: { stringValue: 'Why was I charged twice?' } },
                      { key: 'output.value', value: { stringValue: 'One charge is a pending authorisation.' } },
                    ],
                    status: { code: 1 },
                  },
                ],
              },
            ],
          },
        ],
      },
      response: { partialSuccess: { rejectedSpans: 0, errorMessage: '' } },
    },
  },

  // phone connections
  'phone-connections/create': {
    summary: 'Create a phone connection',
    description: 'A number (E.164) dialed to test a voice agent; `agentSpeaksFirst` (false) says who opens the call.',
    errors: { 403: '`productId` names another organization’s product' },
    example: {
      request: { productId: PRODUCT, name: 'support line', phoneNumber: '+14155550123' },
      response: phoneConnection,
    },
  },
  'phone-connections/list': {
    summary: 'List phone connections',
    description: list('phone connections', '`productIds` narrows to products.'),
    example: { response: [phoneConnection] },
  },
  'phone-connections/batch-delete': {
    summary: 'Delete phone connections',
    description:
      'Soft-deletes 1–100 phone connections in one transaction: all or nothing (one missing id is a 404 and nothing is deleted).',
    errors: { 403: 'an id names another organization’s phone connection', 404: 'an id names no live phone connection' },
    example: { request: { ids: [PHONE] }, response: { ids: [PHONE], deletedAt: LATER } },
  },
  'phone-connections/get': {
    summary: 'Read a phone connection',
    description: read('phone connection'),
    record: 'phone connection',
    example: { response: phoneConnection },
  },
  'phone-connections/update': {
    summary: 'Update a phone connection',
    description: patch('phone connection', '`name`, `phoneNumber`, `agentSpeaksFirst`'),
    record: 'phone connection',
    example: { request: { agentSpeaksFirst: true }, response: { ...phoneConnection, agentSpeaksFirst: true } },
  },

  // MCP server
  'mcp/server': {
    summary: 'Model Context Protocol server (Streamable HTTP)',
    description:
      'An MCP server for coding agents and chat clients: the Model Context Protocol’s Streamable HTTP transport, stateless (no `Mcp-Session-Id`) with JSON answers (no SSE), on the official `@modelcontextprotocol/sdk`. The body is a JSON-RPC 2.0 message or batch (`initialize`, `notifications/initialized`, `tools/list`, `tools/call`, `ping`); `Accept` must list `application/json` and `text/event-stream`, as MCP clients send it. The tools act for the key’s organization through the same use cases as the routes: `list_runs`, `get_run`, `compare_runs`, `failing_cases`, `start_run`, `monitor_status`, `next_review_item`, `label_review_item`. A tool’s error (a rule broken, a record missing or another organization’s, a run not finished) is a tool result with `isError: true` whose text is the HTTP answer’s status and message, never a transport error. A notification alone is answered 202 with no body; the transport’s own refusals (406 without the `Accept` above, 415, 400 for a body that is not JSON-RPC) carry the usual `{error, message}`. See docs/mcp.md.',
    example: {
      request: {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'get_run', arguments: { runId: RUN } },
      },
      response: {
        jsonrpc: '2.0',
        id: 2,
        result: {
          content: [{ type: 'text', text: `Run ${RUN} “v2 · billing questions”: COMPLETED` }],
          structuredContent: { run: { id: RUN, status: 'COMPLETED' } },
        },
      },
    },
  },
  'mcp/get': {
    summary: 'No SSE stream (405)',
    description:
      'Always 405 with `Allow: POST`: the MCP server is stateless and opens no server-to-client stream, as the Streamable HTTP transport lets a server answer. MCP clients read it as “POST only”.',
    successStatus: 405,
    example: {
      response: {
        error: 'Method Not Allowed',
        message:
          'this MCP server is stateless: it opens no SSE stream and keeps no session; send JSON-RPC messages with POST',
      },
    },
  },
  'mcp/delete': {
    summary: 'No session to end (405)',
    description: 'Always 405 with `Allow: POST`: the MCP server is stateless and keeps no session a client could end.',
    successStatus: 405,
    example: {
      response: {
        error: 'Method Not Allowed',
        message:
          'this MCP server is stateless: it opens no SSE stream and keeps no session; send JSON-RPC messages with POST',
      },
    },
  },

  // build info
  'build-info/get': {
    summary: 'Read the API build',
    description: 'The version, commit and build date of the API. ADMIN keys and ENTERPRISE organizations only.',
    example: { response: { api: stamp } },
  },
  'build-info/services': {
    summary: 'Read the builds of the API and its services',
    description:
      'The API build and each downstream service’s (evaluator, scanner, aggregator, runner). A service that does not answer within 2 s is `unreachable`; the call still answers 200. ADMIN keys and ENTERPRISE organizations only.',
    example: {
      response: {
        api: stamp,
        services: [
          { name: 'evaluator', status: 'ok', ...stamp },
          { name: 'scanner', status: 'unreachable', version: 'unknown', commit: 'unknown', buildDate: 'unknown' },
        ],
      },
    },
  },
};
