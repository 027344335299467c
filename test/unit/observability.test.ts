import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as Type from '@sinclair/typebox';
import type { Context } from 'aws-lambda';

// Read at load by the logger and the metrics: every level, and metric lines printed.
const saved = vi.hoisted(() => {
  const before = {
    LOG_LEVEL: process.env.LOG_LEVEL,
    POWERTOOLS_METRICS_DISABLED: process.env.POWERTOOLS_METRICS_DISABLED,
  };
  process.env.LOG_LEVEL = 'debug';
  process.env.POWERTOOLS_METRICS_DISABLED = 'false';
  return before;
});

import { created, httpHandler } from '../../shared/http/handler.js';
import { logger, withLogKeys } from '../../shared/observability/logger.js';
import { observedHandler } from '../../shared/observability/lambda.js';
import { onEveryInvocation } from '../../shared/observability/per-invocation.js';
import {
  countAgentCallError,
  countStalled,
  countMetric,
  METRIC,
  metrics,
  NAMESPACE,
  recordLatency,
  statusClassOf,
} from '../../shared/observability/metrics.js';
import { context, proxyEvent } from '../support/events.js';

afterAll(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

/** Every JSON line written to stdout or stderr while a test runs (Powertools writes through its own Console on both). */
let lines: Record<string, any>[] = [];
beforeEach(() => {
  lines = [];
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream);
    vi.spyOn(stream, 'write').mockImplementation(((chunk: unknown, ...rest: unknown[]) => {
      const text = String(chunk);
      const json = text.split('\n').filter((l) => l.startsWith('{'));
      if (json.length === 0) return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
      lines.push(...json.map((l) => JSON.parse(l) as Record<string, any>));
      return true;
    }) as typeof stream.write);
  }
});
afterEach(() => {
  vi.restoreAllMocks();
});

const emf = () => lines.filter((l) => l._aws);
const logLines = () => lines.filter((l) => !l._aws);

describe('metrics', () => {
  it('names every metric by a constant equal to its name', () => {
    expect(Object.entries(METRIC).every(([k, v]) => k === v)).toBe(true);
    expect(Object.keys(METRIC).sort()).toEqual(
      [
        'AgentCallErrors',
        'AgentCallLatency',
        'CreditsCharged',
        'EvaluationsFailed',
        'EvaluationsSucceeded',
        'JobsGivenUp',
        'LlmCallErrors',
        'LlmCallLatency',
        'OtlpSpansAccepted',
        'OtlpSpansRejected',
        'RunSessionsCompleted',
        'RunSessionsFailed',
        'RunsStalled',
        'WebhookDeliveriesFailed',
        'WebhookDeliveriesSucceeded',
      ].sort(),
    );
  });

  it('flushes counts and latencies as one EMF line in namespace EvalPlatform with the service dimension', () => {
    countMetric(METRIC.CreditsCharged, 3);
    countMetric(METRIC.CreditsCharged, 2);
    countMetric(METRIC.RunSessionsCompleted);
    countMetric(METRIC.OtlpSpansRejected, 0); // nothing: a zero is not a count
    recordLatency(METRIC.LlmCallLatency, 120);
    metrics.publishStoredMetrics();
    expect(emf()).toHaveLength(1);
    const [line] = emf();
    expect(NAMESPACE).toBe('EvalPlatform');
    expect(line!._aws.CloudWatchMetrics).toEqual([
      {
        Namespace: 'EvalPlatform',
        Dimensions: [['service']],
        Metrics: expect.arrayContaining([
          { Name: 'CreditsCharged', Unit: 'Count' },
          { Name: 'RunSessionsCompleted', Unit: 'Count' },
          { Name: 'LlmCallLatency', Unit: 'Milliseconds' },
        ]),
      },
    ]);
    expect(line!._aws.CloudWatchMetrics[0].Metrics).toHaveLength(3);
    expect(line).toMatchObject({
      service: 'eval-platform',
      CreditsCharged: [3, 2],
      RunSessionsCompleted: 1,
      LlmCallLatency: 120,
    });
    expect(line).not.toHaveProperty('OtlpSpansRejected');
  });

  it('counts an agent error on its own line, per statusClass and in all', () => {
    countAgentCallError('5xx');
    expect(emf()).toHaveLength(1);
    const [line] = emf();
    expect(line!._aws.CloudWatchMetrics[0]).toEqual({
      Namespace: 'EvalPlatform',
      Dimensions: [['service', 'statusClass'], ['service']],
      Metrics: [{ Name: 'AgentCallErrors', Unit: 'Count' }],
    });
    expect(line).toMatchObject({ service: 'eval-platform', statusClass: '5xx', AgentCallErrors: 1 });
  });

  it('counts stalled work on its own line, per kind and in all (what the RunsStalled alarm watches)', () => {
    countStalled('test');
    const [line] = emf();
    expect(line!._aws.CloudWatchMetrics[0]).toEqual({
      Namespace: 'EvalPlatform',
      Dimensions: [['service', 'kind'], ['service']],
      Metrics: [{ Name: 'RunsStalled', Unit: 'Count' }],
    });
    expect(line).toMatchObject({ service: 'eval-platform', kind: 'test', RunsStalled: 1 });
  });

  it('classes statuses', () => {
    expect([302, 404, 429, 500, 503].map(statusClassOf)).toEqual(['3xx', '4xx', '4xx', '5xx', '5xx']);
  });
});

describe('a job handler', () => {
  const job = observedHandler(async (event: { n: number }) => {
    withLogKeys({ runId: 'run_1' }, () => logger.info('working'));
    countMetric(METRIC.JobsGivenUp, event.n);
    return event.n;
  });

  it('logs with the Lambda context and flushes its metrics once, at the end of the invocation', async () => {
    expect(await job({ n: 2 }, { ...context(), awsRequestId: 'job-req-1', functionName: 'runner' })).toBe(2);
    expect(logLines().find((l) => l.message === 'working')).toMatchObject({
      function_request_id: 'job-req-1',
      function_name: 'runner',
      runId: 'run_1',
    });
    expect(emf()).toHaveLength(1);
    expect(emf()[0]).toMatchObject({ JobsGivenUp: 2 });
    // An invocation without metrics prints no metric line and no warning about it.
    await job({ n: 0 }, context());
    expect(emf()).toHaveLength(1);
    expect(lines.filter((l) => l.level === 'WARN')).toEqual([]);
  });

  it('runs as it is without a Lambda context (a test calling it directly)', async () => {
    expect(await job({ n: 0 })).toBe(0);
    expect(logLines().find((l) => l.message === 'working')).toMatchObject({ runId: 'run_1' });
  });
});

describe('middlewares added to every invocation', () => {
  it('run in Middy order around the handler, even when added after it was wrapped', async () => {
    const seen: string[] = [];
    const job = observedHandler(async () => {
      seen.push('handler');
      return 'done';
    });
    const step = (name: string) => ({
      before: async () => void seen.push(`${name} before`),
      after: async () => void seen.push(`${name} after`),
      onError: async () => void seen.push(`${name} onError`),
    });
    const removeFirst = onEveryInvocation(step('first'));
    const removeSecond = onEveryInvocation(step('second'));
    try {
      expect(await job({}, context())).toBe('done');
      expect(seen).toEqual(['first before', 'second before', 'handler', 'second after', 'first after']);
      seen.length = 0;
      const failing = observedHandler(async () => {
        throw new Error('broken');
      });
      await expect(failing({}, context())).rejects.toThrow('broken');
      expect(seen).toEqual(['first before', 'second before', 'second onError', 'first onError']);
    } finally {
      removeFirst();
      removeSecond();
    }
    seen.length = 0;
    await job({}, context());
    expect(seen).toEqual(['handler']);
  });
});

describe('log keys', () => {
  it('keep each scope its own keys when scopes run at once', async () => {
    const tick = () => new Promise((r) => setTimeout(r, 5));
    await Promise.all(
      ['a', 'b', 'c'].map((id) =>
        withLogKeys({ sessionId: id }, async () => {
          await tick();
          await withLogKeys({ step: 1 }, async () => {
            await tick();
            logger.info('step');
          });
        }),
      ),
    );
    const steps = logLines().filter((l) => l.message === 'step');
    expect(steps.map((l) => [l.sessionId, l.step]).sort()).toEqual([
      ['a', 1],
      ['b', 1],
      ['c', 1],
    ]);
  });
});

describe('the API request line', () => {
  const Body = Type.Object({ name: Type.String() }, { additionalProperties: false });
  const route = httpHandler({ handler: 'api-keys/create', body: Body }, async ({ body }) =>
    created({ name: body.name }),
  );
  const post = (body: string, extra: Partial<Parameters<typeof proxyEvent>[0]> = {}) =>
    proxyEvent({
      httpMethod: 'POST',
      resource: '/apiKeys',
      path: '/apiKeys',
      body,
      headers: { 'content-type': 'application/json' },
      ...extra,
    });
  const ctx = (id: string): Context => ({ ...context(), awsRequestId: id, functionName: 'api-keys-create' });

  it('carries the API Gateway request id, route, organization, status and the Lambda context', async () => {
    const res = await route(post('{"name":"k"}'), ctx('lambda-req-1'));
    expect(res.statusCode).toBe(201);
    const line = logLines().find((l) => l.message === 'request');
    expect(line).toMatchObject({
      level: 'INFO',
      service: 'eval-platform',
      apiRequestId: 'req-test',
      route: 'POST /apiKeys',
      organizationId: 'org_test',
      status: 201,
      function_request_id: 'lambda-req-1',
      function_name: 'api-keys-create',
      cold_start: expect.any(Boolean),
      method: 'POST',
      path: '/apiKeys',
      ms: expect.any(Number),
    });
    // Every line of the request carries its keys, the debug one too.
    expect(logLines().find((l) => l.message === 'request received')).toMatchObject({
      level: 'DEBUG',
      apiRequestId: 'req-test',
      route: 'POST /apiKeys',
    });
  });

  it('starts each invocation with its own keys: nothing of the previous one', async () => {
    await route(post('{"name":"k"}'), ctx('lambda-req-2'));
    lines = [];
    const event = post('{"name":', {
      requestContext: { ...post('').requestContext, requestId: 'req-2', authorizer: {} },
    });
    const res = await route(event, ctx('lambda-req-3'));
    expect(res.statusCode).toBe(401);
    const line = logLines().find((l) => l.message === 'request');
    expect(line).toMatchObject({
      apiRequestId: 'req-2',
      status: 401,
      function_request_id: 'lambda-req-3',
      cold_start: false,
    });
    expect(line).not.toHaveProperty('organizationId');
  });
});
