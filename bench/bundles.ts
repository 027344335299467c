/**
 * Every function the CDK stack defines, bundled the way CDK bundles it (infra/constructs/
 * app-function.ts `BUNDLING`, same entry), in one esbuild build; plus each function's *floor*: a
 * handler bundled with the same settings that only creates the SDK clients the function's bundle
 * holds (always the DynamoDB document client; S3 with the presigner, SQS, Lambda, Chime SDK Voice
 * where the function reaches them) and sends one command through each. The MCP server's floor also
 * holds the MCP SDK's server and transport, which the design requires of it as it requires the AWS
 * SDK of every function, and answers one request through them. The DynamoDB-only floor is also the
 * reference of the median goal. Used by `npm run bench:cold` and test/infra/bundle-size.test.ts.
 */
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { App } from 'aws-cdk-lib';
import { build, type BuildOptions, type Metafile } from 'esbuild';
import {
  AppFunction,
  bundleEntry,
  bundleInject,
  esbuildOptions,
  MCP_SDK_BUILD_DIR,
  PROJECT_ROOT,
} from '../infra/constructs/app-function.js';
import { writeBuildModules } from '../infra/build-modules.js';
import { EvalPlatformStack } from '../infra/stack.js';

/**
 * The SDK clients a function can hold, by the package that defines each: the AWS SDK's, and the MCP
 * SDK's server (`mcp`, whose entries a bundle holds pre-built: MCP_SDK_BUILD_DIR).
 */
export const SDK_CLIENTS = {
  s3: '@aws-sdk/client-s3',
  sqs: '@aws-sdk/client-sqs',
  lambda: '@aws-sdk/client-lambda',
  chime: '@aws-sdk/client-chime-sdk-voice',
  mcp: '@modelcontextprotocol/sdk',
} as const;
export type SdkClient = keyof typeof SDK_CLIENTS;

/** The name of the DynamoDB-only floor (the document client and one GetItem). */
export const DYNAMODB_FLOOR = 'floor-dynamodb';

export interface Bundle {
  /** The function's handler module (`monitors/results`, `jobs/scanner`, `authorizer`) or a floor's name. */
  name: string;
  file: string;
  bytes: number;
  /** The SDK clients besides DynamoDB's the bundle holds (from esbuild's metafile). */
  clients: SdkClient[];
  /** The npm packages that put code in the bundle (from esbuild's metafile). */
  packages: string[];
  /** The service's schema modules that put code in the bundle (`shared/schemas/<name>.ts` → `<name>`). */
  schemas: string[];
  /** The floor this function is measured against (a floor names itself). */
  floor: string;
}

/**
 * The handler of every function in the stack, read from the synthesized construct tree (no
 * bundling); with telephony configured, so the call-control function is among them.
 */
export function stackHandlers(): string[] {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new EvalPlatformStack(app, 'Functions', { voice: { fromNumber: '+15550100000' } });
  const handlers = stack.node
    .findAll()
    .filter((c): c is AppFunction => c instanceof AppFunction)
    .map((f) => f.handler);
  return [...new Set(handlers)].sort();
}

/** The name of the floor holding these clients (besides DynamoDB's). */
export const floorName = (clients: readonly SdkClient[]) =>
  clients.length ? `floor-dynamodb-${[...clients].sort().join('-')}` : DYNAMODB_FLOOR;

/** A floor handler's source: the clients created at module scope, as the service creates them, and one command each. */
export function floorSource(clients: readonly SdkClient[]): string {
  const has = (c: SdkClient) => clients.includes(c);
  return [
    "import { DynamoDBClient } from '@aws-sdk/client-dynamodb';",
    "import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';",
    has('s3') ? "import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';" : '',
    has('s3') ? "import { getSignedUrl } from '@aws-sdk/s3-request-presigner';" : '',
    has('sqs') ? "import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';" : '',
    has('lambda') ? "import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';" : '',
    has('chime')
      ? "import { ChimeSDKVoiceClient, UpdateSipMediaApplicationCallCommand } from '@aws-sdk/client-chime-sdk-voice';"
      : '',
    has('mcp') ? "import { Server } from '@modelcontextprotocol/sdk/server/index.js';" : '',
    has('mcp')
      ? "import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';"
      : '',
    'const doc = DynamoDBDocumentClient.from(new DynamoDBClient({}));',
    has('s3') ? 'const s3 = new S3Client({});' : '',
    has('sqs') ? 'const sqs = new SQSClient({});' : '',
    has('lambda') ? 'const lambda = new LambdaClient({});' : '',
    has('chime') ? 'const chime = new ChimeSDKVoiceClient({});' : '',
    'export const handler = async (event: { id: string }) => {',
    '  const out: unknown[] = [(await doc.send(new GetCommand({ TableName: process.env.TABLE_NAME, Key: { pk: event.id, sk: event.id } }))).Item];',
    has('s3')
      ? '  out.push(await getSignedUrl(s3, new GetObjectCommand({ Bucket: process.env.BUCKET_NAME, Key: event.id })));'
      : '',
    has('sqs')
      ? "  out.push(await sqs.send(new SendMessageBatchCommand({ QueueUrl: process.env.RUN_QUEUE_URL, Entries: [{ Id: '0', MessageBody: event.id }] })));"
      : '',
    has('lambda') ? '  out.push(await lambda.send(new InvokeCommand({ FunctionName: event.id })));' : '',
    has('chime')
      ? '  out.push(await chime.send(new UpdateSipMediaApplicationCallCommand({ SipMediaApplicationId: process.env.SIP_MEDIA_APPLICATION_ID, TransactionId: event.id, Arguments: {} })));'
      : '',
    // The MCP SDK's server and its stateless transport, made per request as the service makes them, answering a ping.
    has('mcp')
      ? "  const server = new Server({ name: 'floor', version: '0' }, { capabilities: { tools: {} }, jsonSchemaValidator: { getValidator: () => () => ({ valid: true, data: undefined, errorMessage: undefined }) } });"
      : '',
    has('mcp')
      ? '  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });'
      : '',
    has('mcp') ? '  await server.connect(transport);' : '',
    has('mcp')
      ? "  out.push(await (await transport.handleRequest(new Request('https://floor.invalid/mcp', { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: event.id, method: 'ping' }) }))).text());"
      : '',
    '  return out;',
    '};',
    '',
  ]
    .filter((line) => line !== '')
    .join('\n');
}

const buildOptions = (outdir: string): BuildOptions => ({
  ...esbuildOptions(outdir),
  define: {
    __BUILD_STAMP__: JSON.stringify(
      JSON.stringify({ version: '0.0.0-bench', commit: 'bench', buildDate: new Date(0).toISOString() }),
    ),
  },
  metafile: true,
});

/** What put code in one output of a metafile: its npm packages, the service's schema modules and its SDK clients. */
function inputsOf(metafile: Metafile, outfile: string): Pick<Bundle, 'packages' | 'schemas' | 'clients'> {
  const output = Object.entries(metafile.outputs).find(([path]) => resolve(PROJECT_ROOT, path) === outfile)?.[1];
  if (!output) throw new Error(`no output ${outfile} in the metafile`);
  const paths = Object.entries(output.inputs)
    .filter(([, input]) => input.bytesInOutput > 0)
    .map(([path]) => path);
  const matches = (pattern: RegExp) =>
    [
      ...new Set(paths.map((path) => pattern.exec(path)?.[1]).filter((name): name is string => name !== undefined)),
    ].sort();
  const packages = matches(/node_modules\/((?:@[^/]+\/)?[^/]+)\//);
  // The MCP SDK's code comes from its entries pre-built (infra/mcp-sdk.ts), not from its package's files.
  const mcpSdk = paths.some((path) => path.startsWith(`${MCP_SDK_BUILD_DIR}/`));
  const clients = (Object.keys(SDK_CLIENTS) as SdkClient[]).filter((c) =>
    c === 'mcp' ? mcpSdk : packages.includes(SDK_CLIENTS[c]),
  );
  return { packages, schemas: matches(/^shared\/schemas\/([^/]+)\.ts$/), clients };
}

/**
 * A function's entry as CDK composes it: the modules `bundleInject` names, then the handler. One
 * esbuild build cannot inject per entry, so each entry is this small module (esbuild's `inject`
 * also runs the injected file first).
 */
function composedEntry(dir: string, handler: string): string {
  const file = join(dir, `${handler}.ts`);
  mkdirSync(dirname(file), { recursive: true });
  const imports = bundleInject(handler).map((f) => `import ${JSON.stringify(resolve(PROJECT_ROOT, f))};`);
  writeFileSync(file, [...imports, `export { handler } from ${JSON.stringify(bundleEntry(handler))};`, ''].join('\n'));
  return file;
}

/**
 * Bundles every function into `outdir` (`<name>.mjs`) in one esbuild build, then the floors the
 * functions need and the DynamoDB-only floor in a second; returns functions first, floors last.
 * The routes' validators and the OTLP static code are generated first, as the CDK app does before it bundles.
 */
export async function bundleAll(outdir: string, handlers = stackHandlers()): Promise<Bundle[]> {
  mkdirSync(outdir, { recursive: true });
  await writeBuildModules();
  const entrydir = join(outdir, 'entry-src');
  const entryPoints = handlers.map((h) => ({ in: composedEntry(entrydir, h), out: h }));
  const functions = await build({ ...buildOptions(outdir), entryPoints });
  const bundles: Bundle[] = handlers.map((name) => {
    const file = join(outdir, `${name}.mjs`);
    const { packages, schemas, clients } = inputsOf(functions.metafile!, file);
    return { name, file, bytes: statSync(file).size, clients, packages, schemas, floor: floorName(clients) };
  });
  const floorClients = new Map<string, SdkClient[]>([[DYNAMODB_FLOOR, []]]);
  for (const b of bundles) floorClients.set(b.floor, b.clients);
  const srcdir = join(outdir, 'floor-src');
  mkdirSync(srcdir, { recursive: true });
  const floorEntries = [...floorClients].map(([name, clients]) => {
    const src = join(srcdir, `${name}.ts`);
    writeFileSync(src, floorSource(clients));
    return { in: src, out: name };
  });
  const floors = await build({ ...buildOptions(outdir), entryPoints: floorEntries });
  for (const name of floorClients.keys()) {
    const file = join(outdir, `${name}.mjs`);
    // A floor's clients as its own bundle holds them, which the bundle test compares with its functions'.
    const { packages, schemas, clients } = inputsOf(floors.metafile!, file);
    bundles.push({ name, file, bytes: statSync(file).size, clients, packages, schemas, floor: name });
  }
  return bundles;
}

/** Whether a bundle is a floor rather than a function. */
export const isFloor = (b: Pick<Bundle, 'name'>) => b.name.startsWith('floor-');
