import { localRunQueue, localWebhookQueue } from '../../infra/local/queues.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// Read at load by the logger and the metrics: every line at debug, and metric lines printed too.
const saved = vi.hoisted(() => {
  const before = {
    LOG_LEVEL: process.env.LOG_LEVEL,
    POWERTOOLS_METRICS_DISABLED: process.env.POWERTOOLS_METRICS_DISABLED,
  };
  process.env.LOG_LEVEL = 'debug';
  process.env.POWERTOOLS_METRICS_DISABLED = 'false';
  return before;
});

import { call, newTenant } from '../support/api.js';
import { createConnection, createProduct, createVersion, uploadCsv } from '../support/fixtures.js';
import { sendJson, startAgent, type TestAgentServer } from '../support/agent-server.js';
import { reply, startLlmStub, type LlmStub } from '../support/llm-server.js';
import { setLlmConfig } from '../../shared/llm/client.js';
import { basicCredentials } from '../../shared/domain/runs/caller/request.js';
import { drainRunQueue } from '../../infra/local/run-queue.js';
import { webhookDelayQueue } from '../../infra/local/webhook-queue.js';
import { lambdaContext } from '../../infra/local/gateway.js';
import { handler as runner } from '../../functions/jobs/runner.js';
import { handler as deliverer } from '../../functions/jobs/deliverer.js';

/**
 * No secret reaches a log line, even at debug: marked secrets go through a run (the agent's API
 * key, the LLM provider's key), a connection test (a Basic password) and a webhook delivery (the
 * signing secret), all called with the organization's API key; every line written to stdout,
 * stderr or the console is searched for each of them. The test also checks that the lines it
 * searched are there (debug lines, the Lambda context, the ids of the jobs), so it cannot pass on
 * an empty or silent log.
 */

const RUN_MARK = 'SECRET-MARK-RUN-7d1e'; // the conversation connection's API key (X-API-Key)
const CONN_MARK = 'SECRET-MARK-CONN-4b2a'; // the tested connection's Basic password
const LLM_MARK = 'SECRET-MARK-LLM-9c0f'; // the LLM provider's key (Authorization: Bearer)
const BAD_KEY_MARK = 'evk_SECRET-MARK-BADKEY-1f2e'; // a refused API key

let agent: TestAgentServer;
let receiver: TestAgentServer;
let llm: LlmStub;
/** Everything written, as written. */
const written: string[] = [];

beforeAll(async () => {
  process.env.AGENT_ALLOW_PRIVATE_NETWORKS = 'true';
  // Powertools writes through its own Console on process.stdout and process.stderr; other code
  // through the global console, which vitest takes over: both are captured, and not printed.
  for (const stream of [process.stdout, process.stderr]) {
    vi.spyOn(stream, 'write').mockImplementation(((chunk: unknown) => {
      written.push(String(chunk));
      return true;
    }) as typeof stream.write);
  }
  for (const method of ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const) {
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      written.push(
        args
          .map((a) => (a instanceof Error ? `${a.message}\n${a.stack}` : typeof a === 'string' ? a : JSON.stringify(a)))
          .join(' '),
      );
    });
  }
  agent = await startAgent();
  receiver = await startAgent((_req, res) => sendJson(res, 200, { ok: true }));
  llm = await startLlmStub();
});
afterAll(async () => {
  vi.restoreAllMocks();
  setLlmConfig({ baseUrl: undefined, apiKey: undefined });
  await agent.close();
  await receiver.close();
  await llm.close();
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

const jsonLines = () =>
  written
    .join('')
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, any>);

describe('logs at debug level', () => {
  it('never carry a secret, an API key or a signing secret through a run, a connection test and a webhook delivery', {
    timeout: 90_000,
  }, async () => {
    localRunQueue.messages.length = 0;
    localWebhookQueue.messages.length = 0;
    // The agent and the LLM provider both answer with what they were sent, headers included; the
    // LLM's first answer is a 500 that quotes them.
    agent.setHandler((req, res) =>
      sendJson(res, req.url.startsWith('/test') ? 500 : 200, {
        reply: `got ${req.json?.message}`,
        headers: req.headers,
      }),
    );
    let llmCalls = 0;
    llm.setHandler((req) => {
      if (llmCalls++ === 0) return reply.raw(500, { error: 'overloaded', seen: req.headers });
      if (req.schemaName === 'judge_score') return { score: 0.8, reason: 'goal reached' };
      return { stop: false, reason: 'asking', message: `ask ${llmCalls}` };
    });
    setLlmConfig({ baseUrl: llm.url, apiKey: LLM_MARK, timeoutMs: 2000, backoffMs: 10, maxAttempts: 2 });

    const t = await newTenant();
    const hook = await t.api.post('/webhooks', {
      url: `${receiver.url}/hook`,
      events: ['run.completed', 'run.failed'],
    });
    expect(hook.status).toBe(201);
    const signingSecret = hook.body.secret as string;

    // A run: SCENARIOS, two turns of a simulated user, scored by the judge.
    const product = await createProduct(t.api);
    const conversation = await createConnection(t.api, product.id, {
      url: `${agent.url}/chat`,
      authType: 'API_KEY',
      authToken: RUN_MARK,
      outputMapping: { output: '$.reply' },
    });
    const version = await createVersion(t.api, product.id, { conversationEndpointConnectionId: conversation.id });
    const uri = await uploadCsv(t.api, 'goal,user_persona,max_iterations\nget a refund,impatient customer,2\n');
    const test = (
      await t.api.post('/tests', {
        productId: product.id,
        name: 'secrets',
        type: 'SCENARIOS',
        uri,
        strategies: ['written'],
      })
    ).body;
    expect(test.status, JSON.stringify(test)).toBe('SUCCESS');
    const run = await t.api.post('/runs', {
      versionId: version.id,
      testId: test.id,
      metricIds: ['met_goal_completion'],
    });
    expect(run.status, JSON.stringify(run.body)).toBe(201);
    await drainRunQueue((e) => runner(e, lambdaContext('local-runner')) as Promise<unknown>);
    expect((await t.api.get(`/runs/${run.body.id}`)).body).toMatchObject({
      status: 'COMPLETED',
      progress: { completed: 1 },
    });
    const [session] = (await t.api.get('/sessions', { runIds: run.body.id })).body as {
      id: string;
      turnCount: number;
    }[];
    expect(session!.turnCount).toBe(2);
    expect(agent.requests.filter((r) => r.url === '/chat').every((r) => r.headers['x-api-key'] === RUN_MARK)).toBe(
      true,
    );
    expect(llm.requests.every((r) => r.headers.authorization === `Bearer ${LLM_MARK}`)).toBe(true);

    // A connection test with a Basic password, answered 500 with the headers it got.
    const tested = await createConnection(t.api, product.id, {
      url: `${agent.url}/test`,
      authType: 'BASIC',
      username: 'ops',
      password: CONN_MARK,
      outputMapping: { output: '$.reply' },
    });
    const tried = await t.api.post(`/endpointConnections/${tested.id}/test`, { input: { user_message: 'ping' } });
    expect(tried.status).toBe(200);
    expect(tried.body.error).toContain('500');
    expect(agent.requests.at(-1)!.headers.authorization).toBe(`Basic ${basicCredentials('ops', CONN_MARK)}`);

    // The run's webhook delivery, signed with the endpoint's secret.
    await drainRunQueue((e) => deliverer(e, lambdaContext('local-deliverer')) as Promise<unknown>, {
      queue: webhookDelayQueue,
      visibleOnly: true,
    });
    expect(receiver.requests.map((r) => r.json?.type)).toEqual(['run.completed']);
    expect(receiver.requests[0]!.headers['webhook-signature']).toMatch(/^v1,/);

    // A refused key.
    expect((await call('GET', '/organization', { headers: { authorization: `Bearer ${BAD_KEY_MARK}` } })).status).toBe(
      401,
    );

    // The lines are there: the search below searched a real log.
    const lines = jsonLines();
    const logs = lines.filter((l) => !l._aws);
    expect(logs.some((l) => l.level === 'DEBUG')).toBe(true);
    expect(logs.find((l) => l.message === 'request' && l.route === 'POST /runs')).toMatchObject({
      function_request_id: expect.any(String),
      function_name: 'runs/create',
      cold_start: expect.any(Boolean),
      apiRequestId: expect.any(String),
      organizationId: t.org.id,
      status: 201,
    });
    const agentCalls = logs.filter((l) => l.message === 'agent call attempt' && l.runId === run.body.id);
    expect(agentCalls.length).toBeGreaterThanOrEqual(2);
    expect(
      agentCalls.every((l) => l.sessionId === session!.id && l.function_name === 'local-runner' && l.status === 200),
    ).toBe(true);
    expect(logs.some((l) => l.message === 'llm call attempt' && l.status === 500 && l.sessionId === session!.id)).toBe(
      true,
    );
    expect(
      logs.some(
        (l) =>
          l.message === 'agent call attempt' && l.route === 'POST /endpointConnections/{id}/test' && l.status === 500,
      ),
    ).toBe(true);
    expect(logs.find((l) => l.message === 'webhook delivery attempt')).toMatchObject({
      function_name: 'local-deliverer',
      webhookId: hook.body.id,
      ok: true,
    });
    expect(logs.some((l) => l.message === 'key refused')).toBe(true);
    const metricNames = lines
      .filter((l) => l._aws)
      .flatMap((l) => l._aws.CloudWatchMetrics[0].Metrics.map((m: { Name: string }) => m.Name));
    for (const name of [
      'AgentCallLatency',
      'AgentCallErrors',
      'LlmCallLatency',
      'CreditsCharged',
      'RunSessionsCompleted',
      'EvaluationsSucceeded',
      'WebhookDeliveriesSucceeded',
    ]) {
      expect(metricNames, name).toContain(name);
    }

    // …and none of them holds a secret, in any form it was sent.
    const marks = [
      RUN_MARK,
      CONN_MARK,
      basicCredentials('ops', CONN_MARK),
      LLM_MARK,
      t.key,
      t.key.slice(t.key.indexOf('_') + 1),
      signingSecret,
      signingSecret.slice('whsec_'.length),
      BAD_KEY_MARK,
    ];
    const all = written.join('');
    expect(all.length).toBeGreaterThan(10_000);
    for (const mark of marks) expect(all.includes(mark), `a log line holds ${mark}`).toBe(false);
    expect(all).not.toContain('SECRET-MARK');
  });
});
