/**
 * Writes `events/` from the route table: one REST API proxy event per route (as the demo
 * organization), plus the authorizer and job events. Run after adding a route:
 *   npx tsx infra/local/make-events.ts
 * Sample bodies and queries live here; ids that must exist are left as placeholders that read 404.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { routes, type Route } from '../../shared/routes.js';

export const EVENTS_DIR = resolve(import.meta.dirname, '..', '..', 'events');

const samples: Record<
  string,
  {
    body?: unknown;
    query?: Record<string, string>;
    id?: string;
    params?: Record<string, string>;
    headers?: Record<string, string>;
  }
> = {
  'api-keys/create': { body: { name: 'ci pipeline' } },
  'api-keys/list': { query: { limit: '10' } },
  'organization/update': { body: { monthlyCredits: 2000 }, id: 'org_demo' },
  'phone-connections/create': {
    body: { productId: 'prod_example', name: 'support line', phoneNumber: '+14155550123', agentSpeaksFirst: false },
  },
  'phone-connections/list': { query: { limit: '10', sort: 'createdAt:desc' } },
  'phone-connections/update': { body: { agentSpeaksFirst: true } },
  'phone-connections/batch-delete': { body: { ids: ['phc_example'] } },
  'products/create': {
    body: {
      name: 'Support bot',
      description: 'Answers billing questions',
      capabilities: ['issue refunds'],
      inabilities: ['legal advice'],
    },
  },
  'products/list': { query: { name: 'support' } },
  'products/update': { body: { policies: ['never share card numbers'] } },
  'versions/create': { body: { productId: 'prod_example', name: 'v1', modelId: 'gpt-4o-mini' } },
  'versions/list': { query: { productIds: 'prod_example' } },
  'versions/update': { body: { systemPrompt: 'You are a helpful support agent.' } },
  'endpoint-connections/create': {
    body: {
      productId: 'prod_example',
      name: 'chat endpoint',
      url: 'https://agent.example.com/chat',
      httpMethod: 'POST',
      authType: 'BEARER',
      authToken: 'replace-me',
      inputTemplate: '{"message": "{{ input.user_message }}"}',
      outputMapping: { output: '$.reply' },
      type: 'CONVERSATION',
      timeout: 30,
      retryEnabled: true,
      retryMaxAttempts: 3,
    },
  },
  'endpoint-connections/test': {
    body: {
      input: { user_message: 'Where is my refund?' },
      context: 'order 1042 was paid by card',
      variables: { session_id: 'agent-session-1' },
    },
  },
  'metrics/create': {
    body: {
      name: 'Refund policy adherence',
      source: 'PARTIAL_PROMPT',
      evaluationParams: ['input', 'actual_output'],
      judgePrompt: 'Score 1 when the answer follows the refund policy, 0 otherwise.',
      evaluatorModelName: 'gpt-4o-mini',
      tags: ['billing'],
    },
  },
  'metrics/list': { query: { includeDefault: 'true', sources: 'DETERMINISTIC,PARTIAL_PROMPT', monitorable: 'true' } },
  'metrics/get': { id: 'met_json_field_match' },
  'metrics/update': { body: { tags: ['billing', 'v2'] } },
  'models/put': { params: { name: 'gpt-4o-mini' }, body: { provider: 'openai', creditsPerEvaluation: 1 } },
  'specifications/create': {
    body: {
      productId: 'prod_example',
      description: 'Never gives legal advice',
      type: 'POLICY',
      testType: 'RED_TEAMING',
      testVariant: 'misuse',
    },
  },
  'specifications/list': { query: { types: 'POLICY' } },
  'specifications/update': { body: { description: 'Never gives legal or tax advice' } },
  'specifications/link-metrics': { body: { metricIds: ['met_non_toxic'] } },
  'specifications/unlink-metrics': { body: { metricIds: ['met_non_toxic'] } },
  'tests/create': {
    body: {
      productId: 'prod_example',
      name: 'Refund questions',
      type: 'QUALITY',
      variants: ['rag'],
      languageCode: 'en-US',
      maxTestCases: 50,
    },
  },
  'tests/extend': { body: { count: 10 } },
  'tests/augment': { body: { count: 10 } },
  'tests/list': { query: { types: 'QUALITY', hasLiveSpecification: 'true' } },
  'tests/update': { body: { name: 'Refund questions v2' } },
  'test-cases/create': {
    body: {
      testId: 'test_example',
      input: 'Can I get a refund after 30 days?',
      expectedOutput: 'Refunds are possible within 30 days.',
    },
  },
  'test-cases/list': { query: { testIds: 'test_example' } },
  'storage/upload-url': { query: { fileName: 'dataset.csv', contentType: 'text/csv' } },
  'storage/resolve': { query: { uri: 's3://eval-platform-local/orgs/org_demo/uploads/01EXAMPLE/dataset.csv' } },
  'sessions/create': {
    body: {
      versionId: 'ver_example',
      customId: 'conv-42',
      context: 'Customer is on the premium plan',
      metadata: { channel: 'web' },
    },
  },
  'sessions/list': { query: { versionIds: 'ver_example', isProduction: 'true' } },
  // The call ended: its stereo recording (uploaded first) is analysed for the session's voice figures.
  'sessions/update': {
    body: {
      status: 'COMPLETED',
      stoppingReason: 'user_ended',
      recordingUri: 's3://eval-platform-local/orgs/org_demo/uploads/01EXAMPLE/call.wav',
    },
  },
  'sessions/metric-compatibility': { query: { limit: '20' } },
  'inference-results/create': {
    body: { sessionId: 'sess_example', input: 'Where is my order?', output: 'It ships tomorrow.', latencyMs: 820 },
  },
  'inference-results/batch': {
    body: {
      sessionId: 'sess_example',
      messages: [
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello! How can I help?' },
      ],
    },
  },
  'inference-results/list': { query: { sessionIds: 'sess_example' } },
  'inference-results/update': { body: { output: 'It ships on Monday.' } },
  'traces/create': {
    body: {
      inferenceResultId: 'inf_example',
      name: 'search_orders',
      type: 'TOOL',
      inputData: { orderId: '42' },
      outputData: { status: 'shipped' },
      startTime: '2026-01-01T10:00:00.000Z',
      endTime: '2026-01-01T10:00:00.250Z',
    },
  },
  'traces/batch': {
    body: {
      spans: [
        { inferenceResultId: 'inf_example', name: 'retrieve', type: 'RETRIEVER', outputData: 'Orders ship in 2 days.' },
      ],
    },
  },
  'traces/list': { query: { sessionIds: 'sess_example', types: 'TOOL' } },
  'traces/get': { id: 'trace_example' },
  'traces/delete': { id: 'trace_example' },
  'evaluations/create': { body: { sessionId: 'sess_example', metricIds: ['met_is_json', 'met_non_empty_output'] } },
  'evaluations/list': { query: { sessionIds: 'sess_example', statuses: 'SUCCESS' } },
  'evaluations/update': { body: { humanScore: 0.8, humanReason: 'Helpful but slow' } },
  'evaluations/retry': { id: 'eval_example' },
  'monitors/create': {
    body: {
      productId: 'prod_example',
      name: 'Production quality',
      metricGroupIds: ['mgrp_non_empty_output', 'mgrp_no_pii'],
      samplingPercentage: 25,
      monthlyCreditCap: 500,
      filterQuery: 'refund, invoice',
      filterTarget: 'INPUT',
    },
  },
  'monitors/list': { query: { statuses: 'ACTIVE,FAILING' } },
  'monitors/update': { body: { samplingPercentage: 50 } },
  'monitors/results': { query: { days: '14' } },
  'endpoint-connections/list': { query: { types: 'CONVERSATION', authTypes: 'BEARER,NONE' } },
  'endpoint-connections/update': { body: { timeout: 60 } },
  'runs/create': {
    body: {
      versionId: 'ver_example',
      testId: 'test_example',
      name: 'nightly regression',
      repetitions: 3,
      threshold: 0.7,
    },
  },
  'otel/export-traces': {
    // OTLP JSON (the protobuf form is the same message): one root span of a conversation turn.
    body: {
      resourceSpans: [
        {
          resource: {
            attributes: [
              { key: 'service.name', value: { stringValue: 'support-bot' } },
              { key: 'platform.version.id', value: { stringValue: 'ver_example' } },
            ],
          },
          scopeSpans: [
            {
              scope: { name: 'support-bot' },
              spans: [
                {
                  traceId: '5b8efff798038103d269b633813fc60c',
                  spanId: 'eee19b7ec3c1b174',
                  name: 'invoke_agent support-bot',
                  kind: 1,
                  startTimeUnixNano: '1767225600000000000',
                  endTimeUnixNano: '1767225601200000000',
                  attributes: [
                    { key: 'session.id', value: { stringValue: 'conv-42' } },
                    { key: 'gen_ai.operation.name', value: { stringValue: 'invoke_agent' } },
                    { key: 'input.value', value: { stringValue: 'Where is my order?' } },
                    { key: 'output.value', value: { stringValue: 'It ships today.' } },
                  ],
                  status: { code: 1 },
                },
              ],
            },
          ],
        },
      ],
    },
  },
  'runs/comparison': { query: { baseRunId: 'run_base_example' } },
  'runs/comparison-cases': {
    query: { baseRunId: 'run_base_example', changed: 'regressed', sort: 'difference:asc', limit: '20' },
  },
  'runs/junit': { query: { baseRunId: 'run_base_example' } },
  'runs/list': { query: { versionIds: 'ver_example', statuses: 'RUNNING,COMPLETED', sort: 'createdAt:desc' } },
  'webhooks/create': {
    body: {
      url: 'https://hooks.example.com/eval-platform',
      events: ['run.completed', 'run.failed', 'alert.opened', 'alert.resolved'],
      description: 'on-call channel',
    },
  },
  'webhooks/list': { query: { events: 'alert.opened', statuses: 'ENABLED' } },
  'webhooks/get': { id: 'wh_example' },
  'webhooks/update': { id: 'wh_example', body: { status: 'ENABLED' } },
  'webhooks/delete': { id: 'wh_example' },
  'webhooks/test': { id: 'wh_example' },
  'webhooks/deliveries': { id: 'wh_example', query: { statuses: 'FAILED,PENDING', sort: 'createdAt:desc' } },
  'alert-rules/create': {
    id: 'mon_example',
    body: { metricGroupId: 'mgrp_non_empty_output', window: '1h', below: 0.8, minSessions: 20, confidence: 'interval' },
  },
  'alert-rules/list': { id: 'mon_example' },
  'review-queues/create': {
    body: {
      productId: 'prod_example',
      name: 'Billing answers',
      metricIds: ['met_example'],
      reviewersPerItem: 2,
      instructions: 'Score 1 when the answer states the right refund rule.',
    },
  },
  'review-queues/list': { query: { productIds: 'prod_example', limit: '10' } },
  'review-queues/get': { id: 'rq_example' },
  'review-queues/update': { id: 'rq_example', body: { reviewersPerItem: 1 } },
  'review-queues/delete': { id: 'rq_example' },
  'review-queues/add-items': { id: 'rq_example', body: { runId: 'run_example', sampleSize: 40, seed: 'week-47' } },
  'review-queues/list-items': { id: 'rq_example', query: { status: 'PENDING', limit: '10' } },
  'review-queues/next': { id: 'rq_example', body: { reviewer: 'ana' } },
  'review-queues/label': {
    id: 'rq_example',
    params: { itemId: 'rqi_example' },
    body: { reviewer: 'ana', labels: [{ metricId: 'met_example', score: 1, reason: 'right rule' }] },
  },
  'metrics/agreement': { id: 'met_example', query: { productId: 'prod_example' } },
  'alert-rules/get': { id: 'mon_example', params: { ruleId: 'alr_example' } },
  'alert-rules/delete': { id: 'mon_example', params: { ruleId: 'alr_example' } },
  'monitors/alerts': { id: 'mon_example', query: { statuses: 'OPEN' } },
  // An MCP client's tools/call (stateless: no initialize needed first), with the headers it sends.
  'mcp/server': {
    body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_runs', arguments: { limit: 5 } } },
    headers: { Accept: 'application/json, text/event-stream', 'Mcp-Protocol-Version': '2025-06-18' },
  },
};

export function eventFileName(route: Route): string {
  return `${route.handler.replace(/\//g, '-')}.json`;
}

function proxyEvent(route: Route) {
  const sample = samples[route.handler] ?? {};
  const id = sample.id ?? `${route.handler.split('/')[0]!.replace(/-/g, '').slice(0, 4)}_example`;
  const params = Object.fromEntries(
    [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => [
      m[1]!,
      m[1] === 'id' ? id : (sample.params?.[m[1]!] ?? 'example'),
    ]),
  );
  const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => params[name]!);
  const query = sample.query ?? null;
  return {
    resource: route.path,
    path,
    httpMethod: route.method,
    headers: {
      Authorization: 'Bearer evk_replace-with-your-key',
      'Content-Type': 'application/json',
      ...sample.headers,
    },
    multiValueHeaders: {},
    queryStringParameters: query,
    multiValueQueryStringParameters: query ? Object.fromEntries(Object.entries(query).map(([k, v]) => [k, [v]])) : null,
    pathParameters: Object.keys(params).length ? params : null,
    stageVariables: null,
    body: sample.body === undefined ? null : JSON.stringify(sample.body),
    isBase64Encoded: false,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      authorizer: {
        organizationId: 'org_demo',
        userId: 'usr_demo',
        role: route.access === 'admin' ? 'ADMIN' : 'MEMBER',
        plan: 'ENTERPRISE',
        keyId: 'key_demo',
        principalId: 'usr_demo',
      },
      httpMethod: route.method,
      identity: { sourceIp: '127.0.0.1' },
      path: `/v1${path}`,
      protocol: 'HTTP/1.1',
      requestId: `sample-${route.handler.replace(/\//g, '-')}`,
      requestTimeEpoch: 1767225600000,
      resourceId: 'sample',
      resourcePath: route.path,
      stage: 'v1',
    },
  };
}

const jobEvents: Record<string, unknown> = {
  'authorizer.json': {
    type: 'TOKEN',
    authorizationToken: 'Bearer evk_replace-with-your-key',
    methodArn: 'arn:aws:execute-api:us-east-1:000000000000:local/v1/GET/organization',
  },
  'jobs-scanner.json': {
    version: '0',
    id: 'sample-scan',
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: '000000000000',
    time: '2026-01-01T00:05:00Z',
    region: 'us-east-1',
    resources: [],
    detail: {},
  },
  'jobs-aggregator.json': {
    version: '0',
    id: 'sample-aggregate',
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: '000000000000',
    time: '2026-01-01T00:05:00Z',
    region: 'us-east-1',
    resources: [],
    detail: {},
  },
  'jobs-evaluator.json': {
    Records: [
      {
        messageId: 'sample-message',
        receiptHandle: 'sample',
        body: JSON.stringify({ kind: 'evaluation', evaluationId: 'eval_example', sessionId: 'sess_example' }),
        attributes: {
          ApproximateReceiveCount: '1',
          SentTimestamp: '1767225600000',
          SenderId: 'sample',
          ApproximateFirstReceiveTimestamp: '1767225600000',
        },
        messageAttributes: {},
        md5OfBody: '',
        eventSource: 'aws:sqs',
        eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:evaluation-jobs',
        awsRegion: 'us-east-1',
      },
    ],
  },
  'jobs-runner.json': {
    Records: [
      {
        messageId: 'sample-run-message',
        receiptHandle: 'sample',
        body: JSON.stringify({
          kind: 'step',
          organizationId: 'org_demo',
          runId: 'run_example',
          sessionId: 'sess_example',
          seq: 0,
        }),
        attributes: {
          ApproximateReceiveCount: '1',
          SentTimestamp: '1767225600000',
          SenderId: 'sample',
          ApproximateFirstReceiveTimestamp: '1767225600000',
        },
        messageAttributes: {},
        md5OfBody: '',
        eventSource: 'aws:sqs',
        eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:run-jobs',
        awsRegion: 'us-east-1',
      },
    ],
  },
  'jobs-deliverer.json': {
    Records: [
      {
        messageId: 'sample-delivery-message',
        receiptHandle: 'sample',
        body: JSON.stringify({
          kind: 'deliver',
          organizationId: 'org_demo',
          webhookId: 'wh_example',
          deliveryId: 'msg_example',
          attempt: 1,
        }),
        attributes: {
          ApproximateReceiveCount: '1',
          SentTimestamp: '1767225600000',
          SenderId: 'sample',
          ApproximateFirstReceiveTimestamp: '1767225600000',
        },
        messageAttributes: {},
        md5OfBody: '',
        eventSource: 'aws:sqs',
        eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:webhook-deliveries',
        awsRegion: 'us-east-1',
      },
    ],
  },
  'jobs-sweeper.json': {
    version: '0',
    id: 'sample-sweep',
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: '000000000000',
    time: '2026-01-01T00:01:00Z',
    region: 'us-east-1',
    resources: [],
    detail: {},
  },
  'jobs-generator.json': {
    Records: [
      {
        messageId: 'sample-generation-message',
        receiptHandle: 'sample',
        body: JSON.stringify({ organizationId: 'org_demo', testId: 'test_example', seq: 1, step: 0 }),
        attributes: {
          ApproximateReceiveCount: '1',
          SentTimestamp: '1767225600000',
          SenderId: 'sample',
          ApproximateFirstReceiveTimestamp: '1767225600000',
        },
        messageAttributes: {},
        md5OfBody: '',
        eventSource: 'aws:sqs',
        eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:generation-jobs',
        awsRegion: 'us-east-1',
      },
    ],
  },
  'jobs-voice.json': {
    Records: [
      {
        messageId: 'sample-voice-message',
        receiptHandle: 'sample',
        body: JSON.stringify({
          sessionId: 'sess_example',
          recordingUri: 's3://eval-platform-local/orgs/org_demo/uploads/01EXAMPLE/call.wav',
        }),
        attributes: {
          ApproximateReceiveCount: '1',
          SentTimestamp: '1767225600000',
          SenderId: 'sample',
          ApproximateFirstReceiveTimestamp: '1767225600000',
        },
        messageAttributes: {},
        md5OfBody: '',
        eventSource: 'aws:sqs',
        eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:voice-jobs',
        awsRegion: 'us-east-1',
      },
    ],
  },
  'jobs-probe.json': { probe: 'build-info' },
  // What Chime's PSTN audio service sends the call-control function once a voice run's call is answered.
  'jobs-call-control.json': {
    SchemaVersion: '1.0',
    Sequence: 3,
    InvocationEventType: 'CALL_ANSWERED',
    CallDetails: {
      TransactionId: 'sample-transaction',
      TransactionAttributes: {
        organizationId: 'org_demo',
        runId: 'run_example',
        sessionId: 'sess_example',
        seq: '0',
        turn: '1',
        userAudioKey: 'orgs/org_demo/voice/sess_example/1-user.wav',
      },
      AwsAccountId: '000000000000',
      AwsRegion: 'us-east-1',
      SipMediaApplicationId: 'sample-sip-media-application',
      Participants: [
        {
          CallId: 'sample-call',
          ParticipantTag: 'LEG-A',
          To: '+14155550123',
          From: '+14155550100',
          Direction: 'Outbound',
          StartTimeInMilliseconds: '1767225600000',
          Status: 'Connected',
        },
      ],
    },
  },
};

if (process.argv[1] && import.meta.filename === resolve(process.argv[1])) {
  mkdirSync(EVENTS_DIR, { recursive: true });
  for (const route of routes)
    writeFileSync(join(EVENTS_DIR, eventFileName(route)), `${JSON.stringify(proxyEvent(route), null, 2)}\n`);
  for (const [file, event] of Object.entries(jobEvents))
    writeFileSync(join(EVENTS_DIR, file), `${JSON.stringify(event, null, 2)}\n`);
  console.log(`wrote ${routes.length + Object.keys(jobEvents).length} events to ${EVENTS_DIR}`);
}
