import { beforeAll, describe, expect, it } from 'vitest';
import { call, newTenant } from '../support/api.js';
import { createMonitor, createProduct } from '../support/fixtures.js';

/**
 * POST /mcp through the in-process gateway (the authorizer, the function, DynamoDB Local): raw
 * JSON-RPC as an MCP client sends it. The SDK's own client over HTTP is test/e2e/mcp.test.ts.
 */
const ACCEPT = 'application/json, text/event-stream';
const VERSION_HEADER = { 'mcp-protocol-version': '2025-06-18' };

let owner: Awaited<ReturnType<typeof newTenant>>;
let other: Awaited<ReturnType<typeof newTenant>>;
let monitorId: string;
let next = 1;

function rpc(key: string, method: string, params?: unknown, headers: Record<string, string> = {}) {
  return call('POST', '/mcp', {
    key,
    body: { jsonrpc: '2.0', id: next++, method, ...(params === undefined ? {} : { params }) },
    headers: { accept: ACCEPT, ...VERSION_HEADER, ...headers },
  });
}

async function tool(key: string, name: string, args: Record<string, unknown>) {
  const res = await rpc(key, 'tools/call', { name, arguments: args });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.result as {
    isError?: boolean;
    content: { type: string; text: string }[];
    structuredContent?: Record<string, any>;
  };
}

beforeAll(async () => {
  owner = await newTenant();
  other = await newTenant();
  const product = await createProduct(owner.api);
  monitorId = (await createMonitor(owner.api, product.id)).id;
});

describe('POST /mcp', () => {
  it('initializes without a session and lists the eight tools', async () => {
    const init = await rpc(owner.key, 'initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'integration', version: '1' },
    });
    expect(init.status).toBe(200);
    expect(init.headers['mcp-session-id']).toBeUndefined();
    expect(init.body.result).toMatchObject({
      serverInfo: { name: 'eval-platform' },
      capabilities: { tools: {} },
      instructions: expect.stringContaining('compare_runs'),
    });
    const list = await rpc(owner.key, 'tools/list');
    expect(list.body.result.tools.map((t: { name: string }) => t.name).sort()).toEqual([
      'compare_runs',
      'failing_cases',
      'get_run',
      'label_review_item',
      'list_runs',
      'monitor_status',
      'next_review_item',
      'start_run',
    ]);
  });

  it('answers a tool with a text and the same record as structured content, for the caller’s organization', async () => {
    const status = await tool(owner.key, 'monitor_status', { monitorId });
    expect(status.isError).toBeFalsy();
    expect(status.structuredContent).toMatchObject({
      monitor: { id: monitorId, name: 'checkout', status: 'ACTIVE' },
      metrics: [expect.objectContaining({ metricGroupId: 'mgrp_non_empty_output', scoredSessions: 0 })],
      openAlerts: [],
    });
    expect(status.content[0]!.text).toContain('Monitor');
    expect(status.content[0]!.text).toContain('No open alerts.');
    const runs = await tool(owner.key, 'list_runs', {});
    expect(runs.structuredContent).toEqual({ runs: [], total: 0, offset: 0 });
    expect(runs.content[0]!.text).toBe('No runs match.');
  });

  it('answers a broken rule as a tool error with the route’s 400, and an unknown tool as a 404', async () => {
    for (const [name, args, pattern] of [
      ['list_runs', { limit: 0 }, /limit/],
      ['list_runs', { status: ['DONE'] }, /status/],
      ['get_run', { runId: 'not an id!' }, /runId/],
      ['get_run', {}, /runId is required/],
      ['list_runs', { limit: 5, sort: 'name' }, /unknown field 'sort'/],
      [
        'start_run',
        { versionId: 'ver_x', testId: 'test_x', metricIds: ['met_a', 'met_a'] },
        /must not contain duplicates/,
      ],
      ['label_review_item', { queueId: 'rq_x', itemId: 'ri_x', reviewer: ' ', labels: [] }, /reviewer|labels/],
    ] as const) {
      const result = await tool(owner.key, name, args);
      expect(result, name).toMatchObject({ isError: true, structuredContent: { status: 400, error: 'Bad Request' } });
      expect(result.content[0]!.text, name).toMatch(/^400 Bad Request: /);
      expect(result.content[0]!.text, name).toMatch(pattern);
    }
    const unknown = await tool(owner.key, 'no_such_tool', {});
    expect(unknown).toMatchObject({ isError: true, structuredContent: { status: 404, error: 'Not Found' } });
    expect(unknown.content[0]!.text).toMatch(/^404 Not Found: no tool no_such_tool: the tools are list_runs, /);
    const notFound = await tool(owner.key, 'get_run', { runId: 'run_missing' });
    expect(notFound).toMatchObject({
      isError: true,
      structuredContent: { status: 404, error: 'Not Found' },
      content: [{ text: expect.stringMatching(/^404 Not Found: run run_missing/) }],
    });
  });

  it('keeps another organization’s records out: its monitor is a 403 tool error', async () => {
    const result = await tool(other.key, 'monitor_status', { monitorId });
    expect(result).toMatchObject({ isError: true, structuredContent: { status: 403, error: 'Forbidden' } });
    expect(result.content[0]!.text).toMatch(/^403 Forbidden: /);
  });

  it('refuses no key and a bad key at the gateway, and answers the transport’s own refusals', async () => {
    const body = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    expect((await call('POST', '/mcp', { body, headers: { accept: ACCEPT } })).status).toBe(401);
    expect((await call('POST', '/mcp', { key: 'evk_not_a_key', body, headers: { accept: ACCEPT } })).status).toBe(401);
    // Without the Accept an MCP client sends: 406, with the service's error body.
    const noAccept = await call('POST', '/mcp', { key: owner.key, body });
    expect(noAccept.status).toBe(406);
    expect(noAccept.body).toEqual({
      error: 'Not Acceptable',
      message: 'Not Acceptable: Client must accept both application/json and text/event-stream',
    });
    const garbled = await call('POST', '/mcp', {
      key: owner.key,
      rawBody: '{"jsonrpc": ',
      headers: { accept: ACCEPT, 'content-type': 'application/json' },
    });
    expect(garbled.status).toBe(400);
    expect(garbled.body).toEqual({ error: 'Bad Request', message: 'Parse error: Invalid JSON' });
    // A notification alone: 202, no body.
    const note = await call('POST', '/mcp', {
      key: owner.key,
      body: { jsonrpc: '2.0', method: 'notifications/initialized' },
      headers: { accept: ACCEPT, ...VERSION_HEADER },
    });
    expect(note.status).toBe(202);
    expect(note.body).toBeUndefined();
  });

  it('answers GET and DELETE with 405 and Allow: POST', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await call(method, '/mcp', { key: owner.key, headers: { accept: 'text/event-stream' } });
      expect(res.status, method).toBe(405);
      expect(res.headers.allow).toBe('POST');
      expect(res.body).toMatchObject({ error: 'Method Not Allowed' });
    }
  });
});
