import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleAll, DYNAMODB_FLOOR, isFloor, stackHandlers, type Bundle } from '../../bench/bundles.js';
import { jobs, routes } from '../../shared/routes.js';
import { build } from 'esbuild';
import { BUNDLING, LAZY_MODULES, PROJECT_ROOT, RUNTIME_MODULES } from '../../infra/constructs/app-function.js';

let outdir: string;
let bundles: Bundle[];
beforeAll(async () => {
  outdir = mkdtempSync(join(tmpdir(), 'evp-bundle-size-'));
  bundles = await bundleAll(outdir); // one esbuild build of every function the stack defines
}, 600_000);
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe('function bundles', () => {
  it('cover every function the CDK stack defines', () => {
    const names = bundles.filter((b) => !isFloor(b)).map((b) => b.name);
    expect(names.sort()).toEqual(stackHandlers());
    expect(names).toEqual(
      expect.arrayContaining(['authorizer', ...jobs.map((j) => j.handler), ...routes.map((r) => r.handler)]),
    );
  });

  it('import a module left out of the bundles only where the function ships it (RUNTIME_MODULES)', () => {
    for (const module of Object.keys(RUNTIME_MODULES)) {
      const importing = bundles
        .filter((b) => !isFloor(b) && readFileSync(b.file, 'utf8').includes(JSON.stringify(module)))
        .map((b) => b.name);
      const shipping = jobs.filter((j) => j.runtimeModules?.includes(module)).map((j) => j.handler);
      expect(importing.sort(), module).toEqual(shipping.sort());
    }
  });

  it('hold only the SDK clients their code sends through: no barrel drags S3, SQS or Lambda into a DynamoDB-only route', () => {
    const clients = (name: string) => bundles.find((b) => b.name === name)!.clients;
    // Routes that only read or write the table.
    for (const name of [
      'authorizer',
      'products/get',
      'products/list',
      'runs/get',
      'monitors/results',
      'organization/get',
      'metrics/create',
    ]) {
      expect(clients(name), name).toEqual([]);
    }
    expect(clients('build-info/services')).toEqual(['lambda']);
    expect(clients('storage/upload-url')).toEqual(['s3']);
    expect(clients('runs/create')).toContain('sqs');
    // Only a job that places or steers calls holds the Chime client: a route asks telephonyConfigured().
    const chime = bundles.filter((b) => !isFloor(b) && b.clients.includes('chime')).map((b) => b.name);
    expect(chime.filter((name) => !name.startsWith('jobs/'))).toEqual([]);
    // The MCP SDK's server only where POST /mcp answers through it; its floor holds it too (below).
    expect(bundles.filter((b) => !isFloor(b) && b.clients.includes('mcp')).map((b) => b.name)).toEqual(['mcp/server']);
    // A floor holds exactly the clients of its functions.
    for (const b of bundles.filter((x) => !isFloor(x))) {
      const floor = bundles.find((f) => f.name === b.floor)!;
      expect(floor.clients, b.name).toEqual(b.clients);
    }
    expect(bundles.find((b) => b.name === DYNAMODB_FLOOR)!.clients).toEqual([]);
  });

  it('carry the Chime client only where telephony() is called: telephonyConfigured() and the events leave it out', async () => {
    const chimeIn = async (contents: string) => {
      const out = await build({
        stdin: { contents, resolveDir: PROJECT_ROOT, loader: 'ts' },
        bundle: true,
        write: false,
        metafile: true,
        format: BUNDLING.format,
        platform: 'node',
        mainFields: [...BUNDLING.mainFields],
        logLevel: 'error',
      });
      // The files that put bytes in the output (esbuild's `inputs` also lists files it dropped).
      const [output] = Object.values(out.metafile.outputs);
      return Object.keys(output!.inputs).some((i) => i.includes('node_modules/@aws-sdk/client-chime-sdk-voice/'));
    };
    const telephonyModule = JSON.stringify('./shared/telephony/telephony.ts');
    expect(
      await chimeIn(`import { telephonyConfigured } from ${telephonyModule}; console.log(telephonyConfigured());`),
    ).toBe(false);
    expect(
      await chimeIn(`import { callArguments } from './shared/telephony/chime-events.ts'; console.log(callArguments);`),
    ).toBe(false);
    expect(await chimeIn(`import { telephony } from ${telephonyModule}; console.log(telephony());`)).toBe(true);
  });

  it("build only their own resource's schemas at load: a route's record lives beside its request schemas", () => {
    const schemas = (name: string) => bundles.find((b) => b.name === name)!.schemas;
    const elsewhere = ['sessions', 'voice', 'runs', 'review', 'metrics', 'tests', 'monitors', 'webhooks', 'alerts'];
    for (const name of ['products/get', 'products/delete', 'api-keys/list', 'organization/get']) {
      expect(schemas(name), name).toContain('answers');
      expect(
        schemas(name).filter((s) => elsewhere.includes(s)),
        name,
      ).toEqual([]);
    }
    expect(schemas('products/get')).toContain('products');
    expect(schemas('sessions/get')).toEqual(expect.arrayContaining(['sessions', 'voice']));
  });

  it('compile no route schema at load: validators are precompiled (infra/validators.ts)', () => {
    // The formats list shared/schemas/ajv.ts gives ajv-formats when it compiles route schemas.
    const compiling = bundles
      .filter((b) => !isFloor(b) && readFileSync(b.file, 'utf8').includes('"date-time","uri","email","date"'))
      .map((b) => b.name);
    expect(compiling).toEqual([]);
    expect(
      readFileSync(bundles.find((b) => b.name === 'products/get')!.file, 'utf8'),
      'no ajv at all in a catalog route',
    ).not.toContain('strictSchema');
  });

  it('leave the lazy modules out: a function that loads a compiler or analyser for some requests holds none of its packages', () => {
    const of = (name: string) => bundles.find((b) => b.name === name)!;
    const lazyIn = (b: Bundle) =>
      [...readFileSync(b.file, 'utf8').matchAll(/import\("(#[^"]+)"\)/g)].map((m) => m[1]!).sort();
    // Every package import left in a bundle is a lazy module (shipped beside it, test/infra/bundling.test.ts).
    for (const b of bundles.filter((x) => !isFloor(x)))
      for (const specifier of lazyIn(b)) expect(LAZY_MODULES, b.name).toContain(specifier);
    expect(lazyIn(of('metrics/create'))).toEqual(['#regex-safety', '#user-schema-compiler']);
    // ajv's compiler (the precompiled validators need only its small runtime helpers) and the regex analysers.
    const compilers = ['json-schema-traverse', 'fast-uri', 'ajv-formats', 'redos-detector', 'regjsparser'];
    for (const name of [
      'metrics/create',
      'endpoint-connections/create',
      'jobs/evaluator',
      'jobs/runner',
      'jobs/generator',
    ])
      expect(
        of(name).packages.filter((p) => compilers.includes(p)),
        name,
      ).toEqual([]);
    // Student's t, for a comparison only: not even parsed at the cold start of the MCP server and the JUnit report.
    for (const name of ['mcp/server', 'runs/junit']) {
      expect(lazyIn(of(name)), name).toEqual(['#student-t']);
      expect(readFileSync(of(name).file, 'utf8'), name).not.toContain('gammaincinv:compute');
    }
    // The HTML parser is loaded for an HTML document only.
    expect(lazyIn(of('jobs/generator'))).toContain('#html-text');
    expect(of('jobs/generator').packages.filter((p) => ['htmlparser2', 'entities'].includes(p))).toEqual([]);
    // The generator builds an answer schema per call on a fixed shape: it checks answers with the
    // shapes' precompiled validators and holds no compiler. They are in its bundle alone.
    const shapeValidators = '#/properties/attacks/items/required';
    expect(readFileSync(of('jobs/generator').file, 'utf8')).toContain(shapeValidators);
    for (const name of ['jobs/runner', 'jobs/evaluator']) {
      const code = readFileSync(of(name).file, 'utf8');
      expect(code, name).not.toContain(shapeValidators);
      // Nor the shapes themselves (shared/llm/answer-schemas.ts builds them without side effects).
      expect(code, name).not.toContain('rewrites');
    }
  });

  it('hold the scope-hoisted modules of FLAT_PACKAGES, not the CommonJS packages (infra/flat-packages.ts)', () => {
    const of = (name: string) => bundles.find((b) => b.name === name)!;
    for (const name of ['runs/comparison', 'runs/junit'])
      expect(
        of(name).packages.filter((p) => p.startsWith('@stdlib/')),
        name,
      ).toEqual([]);
    for (const name of ['endpoint-connections/create', 'endpoint-connections/test', 'jobs/runner'])
      expect(of(name).packages, name).not.toContain('nunjucks');
    expect(readFileSync(of('runs/comparison').file, 'utf8')).toContain('gammaincinv:compute');
  });

  it("leave JSONPath's script parser out: every JSONPath runs with eval: false (infra/bundling/no-script-parser.ts)", () => {
    for (const name of [
      'endpoint-connections/create',
      'endpoint-connections/update',
      'endpoint-connections/test',
      'jobs/runner',
    ]) {
      const b = bundles.find((x) => x.name === name)!;
      expect(b.packages, name).toContain('jsonpath-plus');
      expect(
        b.packages.filter((p) => p === 'jsep' || p.startsWith('@jsep-plugin/')),
        name,
      ).toEqual([]);
      // jsonpath-plus's build holds jsep inlined: its parser's error must not be in the bundle either.
      expect(readFileSync(b.file, 'utf8'), name).not.toContain('Expected expression after');
    }
  });

  it("leave Nunjucks' environment out of the connection writes: they compile a template and never render it", () => {
    const text = (name: string) => readFileSync(bundles.find((b) => b.name === name)!.file, 'utf8');
    // The parser's error and a filter's error: the compiler is in every bundle, the filters where a template renders.
    for (const name of ['endpoint-connections/create', 'endpoint-connections/update']) {
      expect(text(name), name).toContain('expected variable end');
      expect(text(name), name).not.toContain('dictsort filter');
    }
    for (const name of ['endpoint-connections/test', 'jobs/runner'])
      expect(text(name), name).toContain('dictsort filter');
  });

  it('leave the WAV library out: the call-control handler needs a threshold, the runner loads it for voice runs only', () => {
    expect(bundles.find((b) => b.name === 'jobs/call-control')!.packages).not.toContain('wavefile');
    const runner = bundles.find((b) => b.name === 'jobs/runner')!;
    expect(runner.packages).not.toContain('wavefile');
    expect(readFileSync(runner.file, 'utf8')).toContain('import("#voice-audio")');
  });

  it('carry the metrics code only where their code counts a metric: a route that counts none has no Powertools Metrics', () => {
    const carrying = bundles
      .filter((b) => !isFloor(b) && b.packages.includes('@aws-lambda-powertools/metrics'))
      .map((b) => b.name)
      .sort();
    // The functions that call the agent, the LLM or a webhook receiver, take spans, or take queue
    // jobs (a job given up is counted), and the scanner (stalled runs): shared/observability/metric-names.ts.
    expect(carrying).toEqual([
      'endpoint-connections/test',
      'jobs/deliverer',
      'jobs/evaluator',
      'jobs/generator',
      'jobs/runner',
      'jobs/scanner',
      'jobs/voice-figures',
      'jobs/webhook-sweeper',
      'otel/export-traces',
      'webhooks/test',
    ]);
  });

  it('hold the MCP SDK pre-built without ajv, zod 3 or the protocol schemas nothing refers to (infra/mcp-sdk.ts), the tools’ checks precompiled', () => {
    const server = bundles.find((b) => b.name === 'mcp/server')!;
    expect(server.packages).toContain('zod');
    const leftOut = ['@modelcontextprotocol/sdk', 'ajv-formats', 'fast-uri', 'zod-to-json-schema'];
    expect(server.packages.filter((p) => leftOut.includes(p))).toEqual([]);
    const code = readFileSync(server.file, 'utf8');
    // The tools' arguments are checked by precompiled validators: no ajv compiler.
    expect(code).not.toContain('strictSchema');
    // The protocol's handshake is there; a client's notification the server never reads is not.
    expect(code).toContain('notifications/initialized');
    expect(code).not.toContain('notifications/roots/list_changed');
  });

  it('decode OTLP with static code: the trace route holds protobufjs/minimal, not its reflection (infra/otlp-code.ts)', () => {
    const code = readFileSync(bundles.find((b) => b.name === 'otel/export-traces')!.file, 'utf8');
    expect(code).toContain('.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest');
    // namespace.js's lookup error: in every build that reflects over a descriptor.
    expect(code).not.toContain('no such type');
  });
});
