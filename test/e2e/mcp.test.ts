import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { sendJson, startAgent, type TestAgentServer } from '../support/agent-server.js';
import { runScript } from '../support/raw-http.js';
import { e2eApi, expectStatus } from '../support/typed-api.js';

/**
 * The MCP server (POST /mcp) with the SDK's own client over HTTP against `npm start`: the tools
 * listed, a run started, compared with a base run and its failing cases read; every tool's happy
 * path and its errors as tool errors; another organization's records invisible; no key refused.
 */
const api = e2eApi();
const serverUrl = inject('serverUrl');
const mcpUrl = new URL('/mcp', serverUrl);

const TOOLS = [
  'compare_runs',
  'failing_cases',
  'get_run',
  'label_review_item',
  'list_runs',
  'monitor_status',
  'next_review_item',
  'start_run',
];
// The same question and expected answer: the echo agent scores 1 on text similarity, the
// unhelpful one near 0, so the change regresses with every pair.
const CASES = [
  'where is my invoice',
  'how do I change my plan',
  'can I pay by card',
  'what is my balance',
  'cancel my subscription',
  'update my address',
];
const UNHELPFUL = 'Sorry, I cannot help with that.';

async function connect(apiKey: string): Promise<Client> {
  const client = new Client({ name: 'e2e', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(mcpUrl, { requestInit: { headers: { Authorization: `Bearer ${apiKey}` } } }),
  );
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** A tool's answer when it succeeded: its structured content, after checking it has a readable text. */
async function ok(client: Client, name: string, args: Record<string, unknown>): Promise<any> {
  const result = await call(client, name, args);
  const text = (result.content[0] as { text: string }).text;
  expect(result.isError, text).toBeFalsy();
  expect(text.length).toBeGreaterThan(0);
  return { ...result.structuredContent, text };
}

/** A tool's error: its text (the HTTP answer's status and message). */
async function toolError(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const result = await call(client, name, args);
  expect(result.isError).toBe(true);
  return (result.content[0] as { text: string }).text;
}

async function upload(csv: string): Promise<string> {
  const presigned = await expectStatus(
    api.GET('/storage/generate-put-presigned-url', {
      params: { query: { fileName: 'cases.csv', contentType: 'text/csv' } },
    }),
    200,
  );
  expect(
    (await fetch(presigned.url, { method: 'PUT', body: csv, headers: { 'content-type': 'text/csv' } })).status,
  ).toBe(200);
  return presigned.uri;
}

async function otherKey(): Promise<string> {
  const run = await runScript('infra/local/admin.ts', ['create-org', '--name', 'Other MCP org', '--plan', 'PRO'], {
    TABLE_NAME: undefined,
    DATA_DIR: inject('dataDir'),
  });
  expect(run.code).toBe(0);
  return /api key \(MEMBER, shown once\): (\S+)/.exec(run.stdout)![1]!;
}

let echo: TestAgentServer;
let unhelpful: TestAgentServer;
let client: Client;
const fixture = { productId: '', v1: '', v2: '', testId: '', baseRunId: '' };

beforeAll(async () => {
  echo = await startAgent();
  unhelpful = await startAgent((_req, res) => sendJson(res, 200, { reply: UNHELPFUL }));
  const product = await expectStatus(api.POST('/products', { body: { name: 'mcp e2e bot' } }), 201);
  const version = async (name: string, agent: TestAgentServer) => {
    const connection = await expectStatus(
      api.POST('/endpointConnections', {
        body: {
          productId: product.id,
          name,
          url: `${agent.url}/chat`,
          inputTemplate: '{"message": "{{ input.user_message }}"}',
          outputMapping: { output: '$.reply' },
          type: 'CONVERSATION',
        },
      }),
      201,
    );
    return (
      await expectStatus(
        api.POST('/versions', {
          body: { productId: product.id, name, conversationEndpointConnectionId: connection.id },
        }),
        201,
      )
    ).id;
  };
  fixture.productId = product.id;
  fixture.v1 = await version('v1', echo);
  fixture.v2 = await version('v2', unhelpful);
  const spec = await expectStatus(
    api.POST('/specifications', { body: { productId: product.id, description: 'answers', type: 'CAPABILITY' } }),
    201,
  );
  const test = await expectStatus(
    api.POST('/tests', {
      body: {
        productId: product.id,
        name: 'billing questions',
        type: 'QUALITY',
        specificationId: spec.id,
        uri: await upload(`input,expected_output\n${CASES.map((c) => `${c},${c}`).join('\n')}\n`),
      },
    }),
    201,
  );
  fixture.testId = test.id;
  const base = await expectStatus(
    api.POST('/runs', { body: { versionId: fixture.v1, testId: test.id, metricIds: ['met_text_similarity'] } }),
    201,
  );
  fixture.baseRunId = base.id;
  client = await connect(inject('demoApiKey'));
});
afterAll(async () => {
  await client?.close();
  await echo?.close();
  await unhelpful?.close();
});

/** Polls get_run through MCP until the run leaves PENDING/RUNNING. */
async function finished(runId: string) {
  const deadline = Date.now() + 50_000;
  for (;;) {
    const { run } = await ok(client, 'get_run', { runId });
    if (!['PENDING', 'RUNNING'].includes(run.status)) return run;
    if (Date.now() > deadline) throw new Error(`run ${runId} still ${run.status}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('the MCP server over Streamable HTTP (the SDK’s client against npm start)', () => {
  it('lists the tools, each with a description and an input schema', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(TOOLS);
    for (const tool of tools) {
      expect(tool.description!.length, tool.name).toBeGreaterThan(80);
      expect(tool.inputSchema.type).toBe('object');
    }
    const startRun = tools.find((t) => t.name === 'start_run')!;
    expect(startRun.inputSchema.required).toEqual(expect.arrayContaining(['versionId', 'testId']));
    expect(client.getServerVersion()?.name).toBe('eval-platform');
  });

  it('starts a run, compares it with a base run and reads the cases that broke', async () => {
    const started = await ok(client, 'start_run', {
      versionId: fixture.v2,
      testId: fixture.testId,
      metricIds: ['met_text_similarity'],
      name: 'v2 via mcp',
    });
    expect(started.run).toMatchObject({ name: 'v2 via mcp', status: 'PENDING', versionId: fixture.v2 });
    expect(started.text).toContain(started.run.id);
    const run = await finished(started.run.id);
    expect(run.status).toBe('COMPLETED');
    await finished(fixture.baseRunId);

    const { text: runText, run: read } = await ok(client, 'get_run', { runId: run.id });
    expect(read.metrics[0]).toMatchObject({ metricId: 'met_text_similarity', evaluated: CASES.length, passRate: 0 });
    expect(read.metrics[0]).toHaveProperty('corrected', null);
    expect(runText).toContain('pass rate 0%');

    const listed = await ok(client, 'list_runs', { productId: fixture.productId, status: ['COMPLETED'] });
    expect(listed.runs.map((r: { id: string }) => r.id)).toEqual([run.id, fixture.baseRunId]);
    expect(listed.total).toBe(2);

    const { comparison, text } = await ok(client, 'compare_runs', { runId: run.id, baseRunId: fixture.baseRunId });
    expect(comparison).toMatchObject({ runId: run.id, baseRunId: fixture.baseRunId, verdict: 'regressed' });
    expect(comparison.metrics[0]).toMatchObject({ metricId: 'met_text_similarity', n: CASES.length, baseScore: 1 });
    expect(comparison.metrics[0].difference).toBeLessThan(-0.5);
    expect(text).toMatch(/: regressed/);

    const page = await ok(client, 'failing_cases', { runId: run.id, limit: 4 });
    expect(page).toMatchObject({ runId: run.id, total: CASES.length, sessions: CASES.length, offset: 0 });
    expect(page.items).toHaveLength(4);
    const first = page.items[0];
    expect(CASES).toContain(first.input);
    expect(first).toMatchObject({ expectedOutput: first.input, turns: [{ input: first.input, output: UNHELPFUL }] });
    expect(first.metrics).toEqual([
      expect.objectContaining({ metricId: 'met_text_similarity', score: expect.any(Number), error: null }),
    ]);
    expect(first.metrics[0].score).toBeLessThan(0.5);
    expect(page.text).toContain(UNHELPFUL);
    expect(page.text).toContain('call again with offset 4');
    const rest = await ok(client, 'failing_cases', { runId: run.id, limit: 4, offset: 4 });
    expect(rest.items).toHaveLength(CASES.length - 4);
    expect(await ok(client, 'failing_cases', { runId: fixture.baseRunId })).toMatchObject({ total: 0, items: [] });
  });

  it('answers a monitor’s status and a review queue’s items', async () => {
    const monitor = await expectStatus(
      api.POST('/monitors', {
        body: {
          productId: fixture.productId,
          name: 'mcp monitor',
          metricGroupIds: ['mgrp_non_empty_output'],
          samplingPercentage: 100,
        },
      }),
      201,
    );
    const status = await ok(client, 'monitor_status', { monitorId: monitor.id });
    expect(status).toMatchObject({ monitor: { id: monitor.id, name: 'mcp monitor' }, openAlerts: [] });
    expect(status.metrics).toHaveLength(1);
    expect(status.text).toContain('No open alerts.');

    await finished(fixture.baseRunId);
    const queue = await expectStatus(
      api.POST('/reviewQueues', {
        body: { productId: fixture.productId, name: 'mcp queue', metricIds: ['met_text_similarity'] },
      }),
      201,
    );
    const [session] = await expectStatus(
      api.GET('/sessions', { params: { query: { runIds: [fixture.baseRunId], limit: 1 } } }),
      200,
    );
    await expectStatus(
      api.POST('/reviewQueues/{id}/items', { params: { path: { id: queue.id } }, body: { sessionIds: [session!.id] } }),
      201,
    );
    const next = await ok(client, 'next_review_item', { queueId: queue.id, reviewer: 'ana' });
    expect(next.item).toMatchObject({ queueId: queue.id, sessionId: session!.id, remaining: 1 });
    expect(JSON.stringify(next.item)).not.toContain('"score"');
    const labelled = await ok(client, 'label_review_item', {
      queueId: queue.id,
      itemId: next.item.itemId,
      reviewer: 'ana',
      labels: [{ metricId: 'met_text_similarity', score: 1, reason: 'answers the question' }],
    });
    expect(labelled.item).toMatchObject({ id: next.item.itemId, status: 'DONE' });
    const none = await ok(client, 'next_review_item', { queueId: queue.id, reviewer: 'ana' });
    expect(none.item).toBeNull();
    expect(none.text).toContain('Nothing left');
  });

  it('answers every error as a tool error carrying the HTTP message, never a transport failure', async () => {
    expect(await toolError(client, 'get_run', { runId: 'run_00000000000000000000000000' })).toMatch(/^404 Not Found: /);
    expect(await toolError(client, 'get_run', { runId: 'not an id!' })).toBe(
      '400 Bad Request: runId must be the id of the run (run_…)',
    );
    expect(await toolError(client, 'get_run', {})).toMatch(/runId/);
    expect(
      await toolError(client, 'start_run', { versionId: 'ver_00000000000000000000000000', testId: fixture.testId }),
    ).toMatch(/^400 Bad Request: versionId ver_0+ does not name an existing version/);
    expect(
      await toolError(client, 'start_run', { versionId: fixture.v1, testId: fixture.testId, repetitions: 11 }),
    ).toMatch(/repetitions/);
    expect(
      await toolError(client, 'failing_cases', { runId: fixture.baseRunId, metricId: 'met_non_empty_output' }),
    ).toMatch(/^400 Bad Request: metricId: met_non_empty_output is not one of the run's metrics/);
    expect(
      await toolError(client, 'compare_runs', {
        runId: fixture.baseRunId,
        baseRunId: 'run_00000000000000000000000000',
      }),
    ).toMatch(/^404 Not Found: baseRunId: /);
    expect(await toolError(client, 'monitor_status', { monitorId: 'mon_00000000000000000000000000' })).toMatch(/^404 /);
    expect(
      await toolError(client, 'next_review_item', { queueId: 'rq_00000000000000000000000000', reviewer: 'ana' }),
    ).toMatch(/^404 /);
    // The client is still connected after every error.
    expect((await client.listTools()).tools).toHaveLength(TOOLS.length);
  });

  it('keeps another organization’s records out of sight', async () => {
    const other = await connect(await otherKey());
    try {
      expect(await toolError(other, 'get_run', { runId: fixture.baseRunId })).toMatch(/^403 Forbidden: /);
      expect(await toolError(other, 'failing_cases', { runId: fixture.baseRunId })).toMatch(/^403 Forbidden: /);
      expect(await toolError(other, 'start_run', { versionId: fixture.v1, testId: fixture.testId })).toMatch(
        /^(403|404) /,
      );
      const listed = await ok(other, 'list_runs', {});
      expect(listed).toMatchObject({ runs: [], total: 0 });
    } finally {
      await other.close();
    }
  });

  it('refuses a request without a key or with a bad one, and answers GET and DELETE with 405', async () => {
    const initialize = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    expect((await fetch(mcpUrl, { method: 'POST', headers, body: initialize })).status).toBe(401);
    const bad = await fetch(mcpUrl, {
      method: 'POST',
      headers: { ...headers, authorization: 'Bearer evp_not_a_key' },
      body: initialize,
    });
    expect(bad.status).toBe(401);
    await expect(connect('evp_not_a_key')).rejects.toThrow(/401|Unauthorized/i);

    const auth = { authorization: `Bearer ${inject('demoApiKey')}` };
    const ok200 = await fetch(mcpUrl, { method: 'POST', headers: { ...headers, ...auth }, body: initialize });
    expect(ok200.status).toBe(200);
    expect(ok200.headers.get('mcp-session-id')).toBeNull();
    expect(((await ok200.json()) as any).result.serverInfo.name).toBe('eval-platform');
    for (const method of ['GET', 'DELETE']) {
      const answer = await fetch(mcpUrl, { method, headers: { ...auth, accept: 'text/event-stream' } });
      expect(answer.status, method).toBe(405);
      expect(answer.headers.get('allow')).toBe('POST');
      expect(await answer.json()).toMatchObject({ error: 'Method Not Allowed' });
    }
  });
});
