import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  esbuildOptions,
  LAZY_FOLDER,
  MCP_SDK_BUILD_DIR,
  MCP_SDK_ENTRIES,
  MCP_TOOL_VALIDATORS_FILE,
  mcpSdkFile,
  PROJECT_ROOT,
} from '../../infra/constructs/app-function.js';
import { writeFlatPackages } from '../../infra/flat-packages.js';
import { writeMcpSdk } from '../../infra/mcp-sdk.js';
import { writeMcpToolValidators } from '../../infra/validators.js';
import type { AuthContext } from '../../shared/auth/context.js';
import { answerMcp } from '../../shared/mcp/server.js';
import { newTenant } from '../support/api.js';
import { createMonitor, createProduct } from '../support/fixtures.js';

/**
 * A function bundle resolves the MCP SDK's entries to the modules infra/mcp-sdk.ts pre-builds
 * (no ajv, no zod 3, no protocol schema nothing refers to) and the tools' argument checks to the
 * validators infra/validators.ts precompiles; everything unbundled imports the SDK itself and
 * compiles the checks. The service's MCP server, bundled as a function is, must answer every request exactly as
 * it does unbundled: the protocol's handshake, the tools' list with their JSON Schemas, tool calls
 * that read the table, the tools' errors and the transport's refusals.
 */
let bundled: { answerMcp: typeof answerMcp };
let metafile: Metafile;
let dir: string;
let auth: AuthContext;
let monitorId: string;

beforeAll(async () => {
  await writeFlatPackages();
  await writeMcpSdk();
  writeMcpToolValidators();
  dir = mkdtempSync(join(tmpdir(), 'mcp-sdk-'));
  const entry = join(dir, 'entry.ts');
  writeFileSync(entry, `export { answerMcp } from ${JSON.stringify(resolve(PROJECT_ROOT, 'shared/mcp/server.ts'))};\n`);
  const out = await build({
    ...esbuildOptions(join(dir, 'out')),
    entryPoints: [{ in: entry, out: 'index' }],
    define: { __BUILD_STAMP__: '"{}"' },
    metafile: true,
  });
  metafile = out.metafile;
  // Beside it, as a function ships it: compare_runs' Student's t, a lazy module its package.json maps
  // (built here, not in LAZY_BUILD_DIR, which other test files rebuild meanwhile).
  await build({
    ...esbuildOptions(join(dir, 'out', LAZY_FOLDER)),
    entryPoints: [{ in: resolve(PROJECT_ROOT, 'shared/domain/runs/student-t.ts'), out: 'student-t' }],
  });
  writeFileSync(
    join(dir, 'out', 'package.json'),
    JSON.stringify({ imports: { '#student-t': `./${LAZY_FOLDER}/student-t.mjs` } }),
  );
  bundled = (await import(pathToFileURL(join(dir, 'out', 'index.mjs')).href)) as typeof bundled;

  const tenant = await newTenant();
  auth = {
    organizationId: tenant.org.id,
    userId: tenant.apiKey.userId,
    role: tenant.apiKey.role,
    plan: tenant.org.plan,
    keyId: tenant.apiKey.id,
  };
  const product = await createProduct(tenant.api);
  monitorId = (await createMonitor(tenant.api, product.id)).id;
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const MCP_HEADERS = {
  accept: 'application/json, text/event-stream',
  'content-type': 'application/json',
  'mcp-protocol-version': '2025-06-18',
};

/** A POST /mcp body as the handler hands it to answerMcp. */
function post(body: unknown, headers: Record<string, string> = MCP_HEADERS) {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return { bytes: Buffer.from(text, 'utf8'), contentType: headers['content-type'], headers };
}

/** One answer, its raw bytes as text, and every timestamp made alike (a monitor's range ends now). */
async function answerOf(answer: typeof answerMcp, body: ReturnType<typeof post>): Promise<unknown> {
  const reply = await answer(auth, body);
  const json = JSON.stringify({ ...reply, raw: reply.raw && { ...reply.raw, bytes: reply.raw.bytes.toString() } });
  return JSON.parse(json.replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<time>'));
}

let id = 1;
const rpc = (method: string, params?: unknown) => ({
  jsonrpc: '2.0',
  id: id++,
  method,
  ...(params === undefined ? {} : { params }),
});
const callTool = (name: string, args: Record<string, unknown>) => rpc('tools/call', { name, arguments: args });

describe('the MCP SDK pre-built for the function bundles (infra/mcp-sdk.ts)', () => {
  it('replaces the SDK in a bundle: its pre-built entries, no file of the SDK, ajv or zod 3; the tools’ checks precompiled', () => {
    const [output] = Object.values(metafile.outputs).filter((o) => o.entryPoint);
    const inputs = Object.entries(output!.inputs)
      .filter(([, input]) => input.bytesInOutput > 0)
      .map(([path]) => path);
    // Every entry resolved (the schemas entry only re-exports, so it puts no byte of its own in).
    for (const entry of Object.keys(MCP_SDK_ENTRIES) as (keyof typeof MCP_SDK_ENTRIES)[])
      expect(Object.keys(output!.inputs)).toContain(mcpSdkFile(entry));
    // Of ajv, only the runtime helpers the precompiled checks call (as every route's do): no compiler.
    expect(
      inputs.filter((f) =>
        /node_modules\/(@modelcontextprotocol\/sdk|ajv(?!\/dist\/runtime\/)|ajv-formats|zod-to-json-schema|zod\/v3)\//.test(
          f,
        ),
      ),
    ).toEqual([]);
    // zod 4 once, for the SDK's protocol; the tools' arguments are checked by precompiled validators.
    expect(inputs.filter((f) => f.includes('node_modules/zod/v4/classic/schemas.js'))).toHaveLength(1);
    expect(inputs).toContain(MCP_TOOL_VALIDATORS_FILE);
  });

  it('answers the handshake, the tools’ list and a ping as the SDK does', async () => {
    for (const body of [
      rpc('initialize', {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'bundle-test', version: '1' },
      }),
      rpc('tools/list'),
      rpc('ping'),
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      rpc('resources/list'),
      rpc('no/such/method'),
      [rpc('ping'), rpc('tools/list')],
    ]) {
      const unbundledAnswer = await answerOf(answerMcp, post(body));
      expect(await answerOf(bundled.answerMcp, post(body)), JSON.stringify(body)).toEqual(unbundledAnswer);
    }
    const list = (await answerOf(bundled.answerMcp, post(rpc('tools/list')))) as {
      body: { result: { tools: { name: string; inputSchema: { properties: object } }[] } };
    };
    expect(list.body.result.tools).toHaveLength(8);
    expect(list.body.result.tools.every((t) => Object.keys(t.inputSchema.properties).length > 0)).toBe(true);
  });

  it('answers tool calls as the SDK does: records read from the table, the tools’ errors', async () => {
    for (const body of [
      callTool('monitor_status', { monitorId }),
      callTool('monitor_status', { monitorId, days: 30 }),
      callTool('list_runs', {}),
      callTool('list_runs', { status: ['COMPLETED', 'FAILED'], limit: 5, offset: 2 }),
      callTool('get_run', { runId: 'run_missing' }),
      callTool('compare_runs', { runId: 'run_a', baseRunId: 'run_b' }),
      callTool('failing_cases', { runId: 'run_missing' }),
      callTool('next_review_item', { queueId: 'rq_missing', reviewer: 'ann' }),
      // Broken rules, as the tools' argument checks find them (precompiled in the bundle).
      callTool('list_runs', { limit: 0 }),
      callTool('list_runs', { status: ['DONE'] }),
      callTool('get_run', { runId: 'not an id!' }),
      callTool('get_run', {}),
      callTool('start_run', { versionId: 'ver_x', testId: 'test_x', metricIds: ['met_a', 'met_a'] }),
      callTool('label_review_item', { queueId: 'rq_x', itemId: 'ri_x', reviewer: ' ', labels: [] }),
      callTool('no_such_tool', {}),
      rpc('tools/call', { name: 'get_run' }),
    ]) {
      const unbundledAnswer = await answerOf(answerMcp, post(body));
      expect(await answerOf(bundled.answerMcp, post(body)), JSON.stringify(body)).toEqual(unbundledAnswer);
    }
    const result = async (body: unknown) =>
      ((await answerOf(bundled.answerMcp, post(body))) as { body: { result: Record<string, any> } }).body.result;
    expect(await result(callTool('monitor_status', { monitorId }))).toMatchObject({
      structuredContent: { monitor: { id: monitorId, status: 'ACTIVE' } },
    });
    expect((await result(callTool('monitor_status', { monitorId }))).isError).toBeUndefined();
    expect(await result(callTool('list_runs', { limit: 0 }))).toMatchObject({
      isError: true,
      content: [{ text: '400 Bad Request: limit must be at least 1' }],
    });
  });

  it('refuses what the transport refuses as the SDK does', async () => {
    for (const body of [
      post('{"jsonrpc": '),
      post({ not: 'json-rpc' }),
      post(rpc('tools/list'), { 'content-type': 'application/json' }),
      post(rpc('tools/list'), { ...MCP_HEADERS, 'content-type': 'text/plain' }),
      post(rpc('tools/list'), { ...MCP_HEADERS, 'mcp-protocol-version': '1999-01-01' }),
    ]) {
      const unbundledAnswer = await answerOf(answerMcp, body);
      expect(await answerOf(bundled.answerMcp, body), body.bytes.toString()).toEqual(unbundledAnswer);
    }
  });

  it('fails plainly where the server would need what was left out', async () => {
    const { Server } = (await import(
      pathToFileURL(join(PROJECT_ROOT, MCP_SDK_BUILD_DIR, 'server.mjs')).href
    )) as typeof import('@modelcontextprotocol/sdk/server/index.js');
    // Without a checker of its own, the server would make ajv's.
    expect(() => new Server({ name: 'x', version: '1' })).toThrow(/JSON Schema checker \(ajv\)/);
    expect(
      () =>
        new Server(
          { name: 'x', version: '1' },
          {
            jsonSchemaValidator: {
              getValidator: () => () => ({ valid: false, data: undefined, errorMessage: 'none' }),
            },
          },
        ),
    ).not.toThrow();
    // The schemas entry exports the two requests the tools answer, not the protocol's every schema.
    const types = await import(pathToFileURL(join(PROJECT_ROOT, MCP_SDK_BUILD_DIR, 'types.mjs')).href);
    expect(Object.keys(types).sort()).toEqual(['CallToolRequestSchema', 'ListToolsRequestSchema']);
  });
});
