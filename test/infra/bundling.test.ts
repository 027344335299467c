import { beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { App, Stack } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import {
  AppFunction,
  LAZY_BUILD_DIR,
  LAZY_FOLDER,
  MCP_SDK_ENTRIES,
  MCP_TOOL_VALIDATORS_FILE,
  mcpSdkFile,
  PROJECT_ROOT,
  RUNTIME_MODULES,
  type AppFunctionProps,
} from '../../infra/constructs/app-function.js';
import { writeBuildModules } from '../../infra/build-modules.js';
import { placeholderEnvironment } from '../../shared/config/env.js';

type Bundled = {
  handler: (e: unknown, c?: unknown) => Promise<{ statusCode: number; headers: Record<string, string>; body: string }>;
};

/** Synthesises one AppFunction for real (esbuild, command hooks) and hands its asset folder and loaded bundle to `check`. */
async function withBundle(
  props: Omit<AppFunctionProps, 'role' | 'logGroup'>,
  check: (dir: string, mod: Bundled) => Promise<void>,
) {
  const outdir = mkdtempSync(join(tmpdir(), 'evp-cdk-'));
  try {
    const app = new App({ outdir });
    const stack = new Stack(app, 'BundleTest');
    new AppFunction(stack, 'Fn', {
      ...props,
      role: new Role(stack, 'R', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') }),
      logGroup: new LogGroup(stack, 'L'),
    });
    app.synth();
    const asset = readdirSync(outdir).find((d) => d.startsWith('asset.') && existsSync(join(outdir, d, 'index.mjs')));
    expect(asset).toBeDefined();
    const dir = join(outdir, asset!);
    await check(dir, (await import(pathToFileURL(join(dir, 'index.mjs')).href)) as Bundled);
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

// As the CDK app does before it bundles (the validators injected, the lazy modules shipped beside).
beforeAll(writeBuildModules, 120_000);

/** Runs a script from a function's asset folder alone, as Lambda would, and reads the JSON it prints. */
function probe(dir: string, lines: string[]): unknown {
  writeFileSync(join(dir, 'probe.mjs'), lines.join('\n'));
  const out = spawnSync(process.execPath, ['probe.mjs'], { cwd: dir, encoding: 'utf8' });
  expect(out.stderr).toBe('');
  return JSON.parse(out.stdout);
}

describe('function bundling', () => {
  it('signs with the environment credentials Lambda sets (no other credential source bundled), and logs a stack in its sources', async () => {
    const { startFakeAws } = await import('../support/fake-aws.js');
    let broken = false;
    const fake = await startFakeAws(() => ({
      headers: { 'content-type': 'application/x-amz-json-1.0' },
      // Broken: an answer the SDK cannot read, so the route fails with a 500.
      body: broken
        ? '{"Item": '
        : JSON.stringify({ Item: { pk: { S: 'ORG#o' }, id: { S: 'prd_1' }, name: { S: 'p' } } }),
    }));
    const saved = { ...process.env };
    Object.assign(process.env, {
      TABLE_NAME: 't',
      DYNAMODB_ENDPOINT: fake.endpoint,
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'AKIDFROMLAMBDA',
      AWS_SECRET_ACCESS_KEY: 'secret',
      AWS_SESSION_TOKEN: 'token',
    });
    try {
      await withBundle({ handler: 'products/get', environment: { TABLE_NAME: 't' } }, async (dir, mod) => {
        const code = readFileSync(join(dir, 'index.mjs'), 'utf8');
        // The SSO and STS clients of the default chain, and its profile reader, are not in the bundle.
        for (const left of ['CreateTokenCommand', 'AssumeRoleWithWebIdentity', 'credential_process']) {
          expect(code, left).not.toContain(left);
        }
        const getProduct = {
          httpMethod: 'GET',
          path: '/products/prd_1',
          resource: '/products/{id}',
          headers: {},
          pathParameters: { id: 'prd_1' },
          requestContext: { authorizer: { organizationId: 'o', userId: 'u', role: 'ADMIN', plan: 'FREE' } },
        };
        await mod.handler(getProduct, { awsRequestId: 'r', getRemainingTimeInMillis: () => 10_000 });
        expect(fake.requests.length).toBeGreaterThan(0);
        const auth = String(fake.requests[0]!.headers.authorization);
        expect(auth).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDFROMLAMBDA\//);
        expect(fake.requests[0]!.headers['x-amz-security-token']).toBe('token');

        // A 500's logged stack names the sources, read from the map beside the bundle, in a process
        // of its own without --enable-source-maps, as Lambda runs it (this test's runner maps stacks itself).
        broken = true;
        writeFileSync(
          join(dir, 'fail.mjs'),
          `const { handler } = await import('./index.mjs');\nconst res = await handler(${JSON.stringify(getProduct)}, { awsRequestId: 'r2', getRemainingTimeInMillis: () => 10000 });\nconsole.log(JSON.stringify({ statusCode: res.statusCode }));\n`,
        );
        const child = spawn(process.execPath, ['fail.mjs'], { cwd: dir, env: { ...process.env, NODE_OPTIONS: '' } });
        let output = '';
        child.stdout.on('data', (d) => (output += d));
        child.stderr.on('data', (d) => (output += d));
        await once(child, 'close');
        const lines = output
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .map((l) => JSON.parse(l));
        expect(lines.at(-1)).toEqual({ statusCode: 500 });
        const logged = lines.find((l) => l.message === 'request failed');
        expect(logged?.error?.stack).toMatch(/^\S+Error/);
        const frames = String(logged.error.stack).split('\n').slice(1);
        expect(frames.some((f) => /node_modules\/@(aws-sdk|smithy)\/[^:]+\.js:\d+:\d+\)?$/.test(f))).toBe(true);
        expect(frames.filter((f) => /index\.mjs:\d+:\d+\)?$/.test(f))).toEqual([]);
      });
    } finally {
      process.env = saved;
      await fake.close();
    }
  });

  it('bundles a handler for real (ESM, build stamp defined) and the bundle loads and answers', async () => {
    process.env.TABLE_NAME = 't';
    await withBundle({ handler: 'build-info/get', environment: { TABLE_NAME: 't' } }, async (dir, mod) => {
      const res = await mod.handler(
        {
          httpMethod: 'GET',
          path: '/build-info',
          headers: {},
          requestContext: { authorizer: { organizationId: 'o', userId: 'u', role: 'ADMIN', plan: 'FREE' } },
        },
        { awsRequestId: 'r', getRemainingTimeInMillis: () => 10_000 },
      );
      expect(res.statusCode).toBe(200);
      const stamp = JSON.parse(res.body).api;
      expect(stamp.version).toMatch(/^\d+\.\d+\.\d+/);
      expect(stamp.version).not.toBe('unbundled');
      expect(Date.parse(stamp.buildDate)).not.toBeNaN();
      // Validated by the precompiled validators: no schema compiler in the bundle.
      const refused = await mod.handler(
        {
          httpMethod: 'GET',
          path: '/build-info',
          headers: {},
          queryStringParameters: { verbose: '1' },
          requestContext: { authorizer: { organizationId: 'o', userId: 'u', role: 'ADMIN', plan: 'FREE' } },
        },
        { awsRequestId: 'r', getRemainingTimeInMillis: () => 10_000 },
      );
      expect(refused.statusCode).toBe(400);
      expect(JSON.parse(refused.body)).toEqual({ error: 'Bad Request', message: "unknown query parameter 'verbose'" });
      expect(readFileSync(join(dir, 'index.mjs'), 'utf8'), 'ajv is not bundled').not.toContain('strictSchema');
    });
  });

  it('ships the API reference function with the document and the swagger-ui assets as files beside a small bundle', async () => {
    const files = [
      'docs/openapi.json',
      'node_modules/swagger-ui-dist/swagger-ui.css',
      'node_modules/swagger-ui-dist/swagger-ui-bundle.js',
    ];
    await withBundle({ handler: 'docs/serve', environment: {}, files }, async (dir, mod) => {
      expect(readdirSync(dir).sort()).toEqual([
        'index.mjs',
        'index.mjs.map',
        'openapi.json',
        'swagger-ui-bundle.js',
        'swagger-ui.css',
      ]);
      expect(statSync(join(dir, 'index.mjs')).size).toBeLessThan(20_000);
      const doc = await mod.handler({ httpMethod: 'GET', resource: '/openapi.json', pathParameters: null });
      expect(doc.statusCode).toBe(200);
      expect(JSON.parse(doc.body)).toEqual(
        JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'openapi.json'), 'utf8')),
      );
      const css = await mod.handler({
        httpMethod: 'GET',
        resource: '/docs/{asset}',
        pathParameters: { asset: 'swagger-ui.css' },
      });
      expect([css.statusCode, css.headers['Content-Type']]).toEqual([200, 'text/css; charset=utf-8']);
      expect(
        (await mod.handler({ httpMethod: 'GET', resource: '/docs/{asset}', pathParameters: { asset: 'index.mjs' } }))
          .statusCode,
      ).toBe(404);
    });
  });

  it("ships pdf.js beside the generator bundle, not in it, where the bundle's import finds it", async () => {
    placeholderEnvironment('bundling-test');
    await withBundle({ handler: 'jobs/generator', environment: {}, runtimeModules: ['unpdf/pdfjs'] }, async (dir) => {
      const bundle = readFileSync(join(dir, 'index.mjs'), 'utf8');
      expect(bundle.length).toBeLessThan(1_000_000);
      expect(bundle).toContain('"unpdf/pdfjs"');
      for (const f of RUNTIME_MODULES['unpdf/pdfjs']!) expect(statSync(join(dir, f)).isFile(), f).toBe(true);
      // Resolved from the asset folder alone (no node_modules above a temporary folder), as Lambda would.
      const script = "const { getDocument } = await import('unpdf/pdfjs'); console.log(typeof getDocument);";
      const out = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: dir, encoding: 'utf8' });
      expect(out.stderr).toBe('');
      expect(out.stdout.trim()).toBe('function');
      // The HTML parser is a lazy module beside the bundle, loaded for an HTML document only.
      expect(bundle).not.toContain('onopentagname');
      const text = probe(dir, [
        "const { htmlToText } = await import('#html-text');",
        "console.log(JSON.stringify(htmlToText('<p>Refunds &amp; returns</p><script>x()</script>')));",
      ]);
      expect(text).toBe('\n\nRefunds & returns\n\n');
    });
  });

  it('ships the lazy modules a bundle imports beside it, where its import finds them, and no others', async () => {
    placeholderEnvironment('bundling-test');
    await withBundle({ handler: 'metrics/create', environment: {} }, async (dir) => {
      expect(readdirSync(join(dir, LAZY_FOLDER)).sort()).toEqual([
        'regex-safety.mjs',
        'regex-safety.mjs.map',
        'user-schema-compiler.mjs',
        'user-schema-compiler.mjs.map',
      ]);
      // Resolved through the function's package.json from its folder alone, as Lambda would.
      const answer = probe(dir, [
        "const { newUserSchemaCompiler } = await import('#user-schema-compiler');",
        "const { catastrophicBacktracking } = await import('#regex-safety');",
        "const valid = newUserSchemaCompiler().compile({ type: 'string', format: 'email' });",
        "console.log(JSON.stringify([valid('a@b.co'), valid('nope'), typeof catastrophicBacktracking]));",
      ]);
      expect(answer).toEqual([true, false, 'function']);
    });
    // The runner's audio module works alone too (its bundle names it: test/infra/bundle-size.test.ts),
    // copied into a folder with nothing else, as the hook ships it.
    const alone = mkdtempSync(join(tmpdir(), 'lazy-audio-'));
    try {
      writeFileSync(
        join(alone, 'voice-audio.mjs'),
        readFileSync(join(PROJECT_ROOT, LAZY_BUILD_DIR, 'voice-audio.mjs')),
      );
      const answer = probe(alone, [
        "const { decodeWav, encodeWav, leadingSilenceMs } = await import('./voice-audio.mjs');",
        'const samples = new Int16Array(800); samples.fill(8000, 400);',
        'console.log(JSON.stringify([decodeWav(encodeWav(samples)).length, leadingSilenceMs(samples)]));',
      ]);
      expect(answer).toEqual([800, 40]); // 20 ms frames: the third holds the first loud sample
    } finally {
      rmSync(alone, { recursive: true, force: true });
    }
    await withBundle({ handler: 'products/get', environment: {} }, async (dir) => {
      expect(existsSync(join(dir, LAZY_FOLDER))).toBe(false);
    });
  });

  it("bundles the scope-hoisted Student's t and Nunjucks in place of the packages, and the bundles load", async () => {
    for (const [handler, group, pkg] of [
      ['runs/comparison', 'student-t', '@stdlib/'],
      ['endpoint-connections/create', 'nunjucks', 'nunjucks/'],
    ] as const)
      await withBundle({ handler, environment: { TABLE_NAME: 't' } }, async (dir, mod) => {
        expect(typeof mod.handler, handler).toBe('function');
        const { sources } = JSON.parse(readFileSync(join(dir, 'index.mjs.map'), 'utf8')) as { sources: string[] };
        expect(sources, handler).toContainEqual(expect.stringMatching(new RegExp(`\\.build/flat/${group}\\.`)));
        expect(
          sources.filter((s) => s.includes(`node_modules/${pkg}`)),
          handler,
        ).toEqual([]);
      });
  });

  it("bundles the MCP SDK's pre-built server entries in place of the package, and the bundle loads", async () => {
    await withBundle({ handler: 'mcp/server', environment: { TABLE_NAME: 't' } }, async (dir, mod) => {
      expect(typeof mod.handler).toBe('function');
      const { sources } = JSON.parse(readFileSync(join(dir, 'index.mjs.map'), 'utf8')) as { sources: string[] };
      // The entries with code of their own (the schemas entry only re-exports from the shared chunk).
      for (const entry of Object.keys(MCP_SDK_ENTRIES) as (keyof typeof MCP_SDK_ENTRIES)[])
        if (!('names' in MCP_SDK_ENTRIES[entry]))
          expect(sources).toContainEqual(expect.stringContaining(mcpSdkFile(entry)));
      // The tools' argument checks precompiled, not compiled at load.
      expect(sources).toContainEqual(expect.stringContaining(MCP_TOOL_VALIDATORS_FILE));
      // Of ajv, only the runtime helpers the precompiled checks call, as every route's do.
      expect(
        sources.filter((s) => /node_modules\/(@modelcontextprotocol|ajv(?!\/(dist|lib)\/runtime\/))/.test(s)),
      ).toEqual([]);
      // compare_runs' Student's t is a lazy module beside it, which its import finds.
      expect(readdirSync(join(dir, LAZY_FOLDER)).sort()).toEqual(['student-t.mjs', 'student-t.mjs.map']);
      const quantile = probe(dir, [
        "const { studentT } = await import('#student-t');",
        'console.log(JSON.stringify(studentT.quantile(0.975, 10)));',
      ]);
      expect(quantile).toBeCloseTo(2.228, 3);
    });
  });
});
