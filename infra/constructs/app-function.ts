import type { BuildOptions } from 'esbuild';
import { execSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Duration } from 'aws-cdk-lib';
import {
  ApplicationLogLevel,
  Architecture,
  LoggingFormat,
  Runtime,
  Tracing,
  type IFunction,
} from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { IRole } from 'aws-cdk-lib/aws-iam';
import type { ILogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct, type IConstruct } from 'constructs';
import { routes } from '../../shared/routes.js';
import { ENV } from '../../shared/config/env.js';
import { METRICS_NAMESPACE, SERVICE_NAME } from '../../shared/observability/metric-names.js';
import { FUNCTION_MEMORY_MB } from '../function-memory.js';

/** The project root; `entry` is resolved from it, never from import.meta.url of a bundle. */
export const PROJECT_ROOT = resolve(import.meta.dirname, '..', '..');

function stamp(): { version: string; commit: string; buildDate: string } {
  const pkg = JSON.parse(readFileSync(resolve(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string };
  let commit = process.env.BUILD_COMMIT ?? 'unknown';
  if (!process.env.BUILD_COMMIT) {
    try {
      commit = execSync('git rev-parse --short HEAD', { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'ignore'] })
        .toString()
        .trim();
    } catch {
      /* not a git checkout: the stamp says unknown */
    }
  }
  return { version: pkg.version, commit, buildDate: new Date().toISOString() };
}

/** Computed once per synth, so every function of one deploy carries the same stamp. */
const BUILD_STAMP = JSON.stringify(stamp());

/** A function's bundle entry: its handler module. */
export function bundleEntry(handler: string): string {
  return resolve(PROJECT_ROOT, 'functions', `${handler}.ts`);
}

/**
 * Where the modules generated before bundling are written, from the project root (git-ignored):
 * the routes' validators and the fixed LLM answers' (infra/validators.ts), the OTLP messages as
 * static code (infra/otlp-code.ts). The generators write these files and the bundles read them.
 */
export const VALIDATORS_BUILD_DIR = '.build/validators';
export const ANSWER_VALIDATORS_FILE = `${VALIDATORS_BUILD_DIR}/llm-answers.ts`;
export const GENERATOR_ANSWER_VALIDATORS_FILE = `${VALIDATORS_BUILD_DIR}/generator-answers.ts`;
/** The MCP tools' argument checks, precompiled: `#mcp-tool-validators` in the MCP function's bundle. */
export const MCP_TOOL_VALIDATORS_FILE = `${VALIDATORS_BUILD_DIR}/mcp-tools.ts`;
export const OTLP_BUILD_DIR = '.build/otlp';
export const OTLP_MESSAGES_FILE = `${OTLP_BUILD_DIR}/messages.js`;

/** A route's precompiled validators module (infra/validators.ts writes it), from the project root. */
export const routeValidatorsFile = (handler: string): string => `${VALIDATORS_BUILD_DIR}/${handler}.ts`;

/**
 * What a route's bundle injects ahead of its handler: the route's precompiled validators,
 * relative to the project root where esbuild runs. A job has none.
 */
export function bundleInject(handler: string): string[] {
  return routes.some((r) => r.handler === handler) ? [`./${routeValidatorsFile(handler)}`] : [];
}

/**
 * Modules no bundle holds, with the files that make each importable from a function's
 * `node_modules`: a function that uses one ships them (`runtimeModules`), and Node loads the module
 * on its first `import()`, so its size costs nothing at a cold start. unpdf imports pdf.js
 * (`unpdf/pdfjs`, 1.6 MiB) only when it reads a PDF.
 */
export const RUNTIME_MODULES: Readonly<Record<string, readonly string[]>> = {
  'unpdf/pdfjs': ['node_modules/unpdf/package.json', 'node_modules/unpdf/dist/pdfjs.mjs'],
};

/**
 * Modules a function imports with `import()` for some requests only, by their package.json
 * `imports` specifier: left out of every bundle and shipped beside the bundles that import them
 * (infra/lazy-modules.ts builds them before bundling; `lazyModuleCommands` ships them).
 */
export const LAZY_MODULES = [
  '#user-schema-compiler',
  '#regex-safety',
  '#answer-compiler',
  '#html-text',
  '#voice-audio',
  '#voice-recording',
  '#student-t',
] as const;

/** Where the lazy modules are built (from the project root), and where a function's folder holds them. */
export const LAZY_BUILD_DIR = '.build/lazy';
export const LAZY_FOLDER = 'lazy';

/** `#user-schema-compiler` → `user-schema-compiler`: its file's name (`.mjs`) in LAZY_BUILD_DIR and a function's LAZY_FOLDER. */
export const lazyModuleName = (specifier: string): string => specifier.slice(1);

/**
 * CommonJS packages a function loads at every cold start, bundled before the functions as one
 * scope-hoisted ES module per group (infra/flat-packages.ts, into FLAT_BUILD_DIR). esbuild keeps
 * each CommonJS file of a package in a wrapper of its own that the bundle compiles and runs at
 * load: Student's t is 419 such files. A group's packages share their dependencies in one module.
 * BUNDLING's alias sends each package to its group's module; code outside the bundles imports the
 * package itself.
 */
export const FLAT_PACKAGES = {
  'student-t': ['@stdlib/stats-base-dists-t-cdf', '@stdlib/stats-base-dists-t-quantile'],
  // A connection's write compiles its template and never renders it: the compiler's entries load
  // Nunjucks' parser and compiler without its environment.
  nunjucks: ['nunjucks', 'nunjucks/src/parser.js', 'nunjucks/src/compiler.js', 'nunjucks/src/nodes.js'],
} as const satisfies Record<string, readonly string[]>;
export const FLAT_BUILD_DIR = '.build/flat';

/** The module a package's imports resolve to in a function bundle: its exports, from its group's module. */
export const flatPackageFile = (group: string, index: number): string => `${FLAT_BUILD_DIR}/${group}.${index}.mjs`;

const FLAT_PACKAGE_ALIASES: Record<string, string> = Object.fromEntries(
  Object.entries(FLAT_PACKAGES).flatMap(([group, packages]) =>
    packages.map((name, i) => [name, `./${flatPackageFile(group, i)}`]),
  ),
);

/**
 * The MCP SDK's entries the MCP function imports (shared/mcp/server.ts, tools.ts), pre-built with
 * rollup before the functions are bundled (infra/mcp-sdk.ts, into MCP_SDK_BUILD_DIR) and aliased
 * there in BUNDLING: the SDK as it is, less what the server never runs. Its default JSON Schema
 * checker (ajv and ajv-formats, imported by a relative path no alias reaches: the server gets its own
 * checker), its compatibility code for zod 3 schemas, and the protocol's zod schemas that no server
 * code refers to. An entry with `names` exports only those (of `types.js`, which exports every
 * schema of the protocol).
 */
export const MCP_SDK_ENTRIES = {
  server: { specifier: '@modelcontextprotocol/sdk/server/index.js' },
  webStandardStreamableHttp: { specifier: '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js' },
  types: {
    specifier: '@modelcontextprotocol/sdk/types.js',
    names: ['CallToolRequestSchema', 'ListToolsRequestSchema'],
  },
} as const satisfies Record<string, { specifier: string; names?: readonly string[] }>;
export const MCP_SDK_BUILD_DIR = '.build/mcp-sdk';

/** The module an MCP SDK entry resolves to in a function bundle. */
export const mcpSdkFile = (entry: keyof typeof MCP_SDK_ENTRIES): string => `${MCP_SDK_BUILD_DIR}/${entry}.mjs`;

/** The package.json beside a function that ships lazy modules: it maps each specifier to its file. */
const FUNCTION_PACKAGE_JSON = JSON.stringify({
  imports: Object.fromEntries(LAZY_MODULES.map((s) => [s, `./${LAZY_FOLDER}/${lazyModuleName(s)}.mjs`])),
});

/**
 * The shell commands that ship the lazy modules a bundle imports (its minified code names the
 * specifier) from LAZY_BUILD_DIR beside it, and then the package.json that maps them.
 */
export function lazyModuleCommands(inputDir: string, outputDir: string): string[] {
  return [
    ...LAZY_MODULES.map((s) => {
      const built = `${inputDir}/${LAZY_BUILD_DIR}/${lazyModuleName(s)}.mjs`;
      return `if grep -q '"${s}"' "${outputDir}/index.mjs"; then mkdir -p "${outputDir}/${LAZY_FOLDER}" && cp "${built}" "${built}.map" "${outputDir}/${LAZY_FOLDER}/"; fi`;
    }),
    `if [ -d "${outputDir}/${LAZY_FOLDER}" ]; then printf '%s' '${FUNCTION_PACKAGE_JSON}' > "${outputDir}/package.json"; fi`,
  ];
}

/**
 * The esbuild settings of every function (NodejsFunction's bundling, also read by bench/bundles.ts).
 * `#route-validators` resolves to the registry the injected precompiled validators fill
 * (`bundleInject`), so no schema compiler is bundled (the local server resolves it to ajv through
 * package.json `imports`). `external`: the RUNTIME_MODULES and LAZY_MODULES above.
 */
export const BUNDLING = {
  format: OutputFormat.ESM,
  target: 'node22',
  minify: true,
  // Beside each bundle, read only when a stack is logged (shared/observability/stack-map.ts): the
  // functions run without --enable-source-maps, under which Node parses every map at load
  // (docs/cold-start.md). They carry file, line and name, not the sources.
  sourceMap: true,
  sourcesContent: false,
  mainFields: ['module', 'main'],
  banner: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
  alias: {
    '#route-validators': './shared/http/precompiled-validators.ts',
    // The fixed LLM answer schemas' validators, precompiled (infra/validators.ts): no answer compiler loads.
    '#answer-validators': `./${ANSWER_VALIDATORS_FILE}`,
    // The shapes the generator's answer schemas are built on, precompiled the same way, for its bundle alone.
    '#generator-answer-validators': `./${GENERATOR_ANSWER_VALIDATORS_FILE}`,
    // The MCP tools' argument checks, precompiled the same way (the local server compiles them on first use).
    '#mcp-tool-validators': `./${MCP_TOOL_VALIDATORS_FILE}`,
    // The OTLP messages as protobufjs static code (infra/otlp-code.ts): no reflection at load.
    '#otlp-messages': `./${OTLP_MESSAGES_FILE}`,
    // Lambda gives every function its credentials in the environment: the default chain's other
    // sources are left out (infra/bundling/env-credentials.ts).
    '@aws-sdk/credential-provider-node': './infra/bundling/env-credentials.ts',
    // JSONPath runs with `eval: false` everywhere: its script parser is left out
    // (infra/bundling/no-script-parser.ts).
    'jsonpath-plus': './node_modules/jsonpath-plus/src/jsonpath-node.js',
    jsep: './infra/bundling/no-script-parser.ts',
    '@jsep-plugin/regex': './infra/bundling/no-script-parser.ts',
    '@jsep-plugin/assignment': './infra/bundling/no-script-parser.ts',
    // CommonJS packages scope-hoisted before bundling (FLAT_PACKAGES).
    ...FLAT_PACKAGE_ALIASES,
    // The MCP SDK's server entries without ajv, zod 3 and the schemas nothing refers to (MCP_SDK_ENTRIES).
    ...Object.fromEntries(
      Object.entries(MCP_SDK_ENTRIES).map(([entry, { specifier }]) => [
        specifier,
        `./${mcpSdkFile(entry as keyof typeof MCP_SDK_ENTRIES)}`,
      ]),
    ),
  },
  external: [...Object.keys(RUNTIME_MODULES), ...LAZY_MODULES],
} as const;

/**
 * BUNDLING as options of esbuild's own API, for the builds the CDK does not run (the benchmarks'
 * bundles, the lazy modules): the same output a function's bundle gets, into `outdir` as `.mjs`.
 */
export function esbuildOptions(outdir: string): BuildOptions {
  return {
    absWorkingDir: PROJECT_ROOT,
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: BUNDLING.format,
    target: BUNDLING.target,
    minify: BUNDLING.minify,
    sourcemap: BUNDLING.sourceMap,
    sourcesContent: BUNDLING.sourcesContent,
    mainFields: [...BUNDLING.mainFields],
    banner: { js: BUNDLING.banner },
    alias: Object.fromEntries(Object.entries(BUNDLING.alias).map(([from, to]) => [from, resolve(PROJECT_ROOT, to)])),
    external: [...BUNDLING.external],
    nodePaths: [resolve(PROJECT_ROOT, 'node_modules')],
    logLevel: 'error',
  };
}

/** The CDK context key that sets every function's log level: `npx cdk deploy -c logLevel=DEBUG`. */
export const LOG_LEVEL_CONTEXT = 'logLevel';
export const DEFAULT_LOG_LEVEL = 'INFO';
/**
 * The levels both Lambda's log filter (application log level) and Powertools Logger know. Powertools
 * reads LOG_LEVEL in upper case only, and gives way to Lambda's level (AWS_LAMBDA_LOG_LEVEL) when
 * that is set, so both get the same value.
 */
const LOG_LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'] as const satisfies readonly `${ApplicationLogLevel}`[];
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * The log level of the functions in `scope`: the `logLevel` context value (any case), else INFO.
 * Read from context, not from the synthesizing shell's LOG_LEVEL, which is the local runtime's own
 * setting (and the test runner's), not a deployment's.
 */
export function logLevelOf(scope: IConstruct): LogLevel {
  const given: unknown = scope.node.tryGetContext(LOG_LEVEL_CONTEXT);
  if (given === undefined || given === '') return DEFAULT_LOG_LEVEL;
  const level = String(given).toUpperCase();
  if (!(LOG_LEVELS as readonly string[]).includes(level)) {
    throw new Error(`context ${LOG_LEVEL_CONTEXT}=${String(given)} is not one of ${LOG_LEVELS.join(', ')}`);
  }
  return level as LogLevel;
}

/** Powertools' own variables (the library reads them; the code never does). */
const POWERTOOLS_SERVICE_NAME = 'POWERTOOLS_SERVICE_NAME';
const POWERTOOLS_METRICS_NAMESPACE = 'POWERTOOLS_METRICS_NAMESPACE';

export interface AppFunctionProps {
  /** Module under `functions/`, without extension. */
  handler: string;
  role: IRole;
  logGroup: ILogGroup;
  environment: Record<string, string>;
  memorySize?: number;
  timeout?: Duration;
  /** Project files shipped beside the bundle (read at run time, not bundled into the JS). */
  files?: readonly string[];
  /** Keys of RUNTIME_MODULES the function imports: their files are shipped at the same paths. */
  runtimeModules?: readonly string[];
}

/**
 * Every function of the service: Node.js 22 on arm64, ESM bundle (minified, source map beside it) with
 * the build stamp defined at bundle time, X-Ray tracing, a shared role and log group, JSON logs
 * (Lambda's own lines too) filtered at the level of `logLevelOf`, and the Powertools service name
 * and metrics namespace of shared/observability/metric-names.ts.
 */
export class AppFunction extends Construct {
  readonly fn: NodejsFunction;
  /** The module under `functions/` (bench/bundles.ts lists the stack's functions by it). */
  readonly handler: string;

  constructor(scope: Construct, id: string, props: AppFunctionProps) {
    super(scope, id);
    this.handler = props.handler;
    const logLevel = logLevelOf(this);
    this.fn = new NodejsFunction(this, 'Fn', {
      entry: bundleEntry(props.handler),
      handler: 'handler',
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? FUNCTION_MEMORY_MB.api,
      timeout: props.timeout ?? Duration.seconds(29),
      tracing: Tracing.ACTIVE,
      role: props.role,
      logGroup: props.logGroup,
      // JSON lines, so Logs Insights queries fields; Lambda drops application lines below the level.
      loggingFormat: LoggingFormat.JSON,
      applicationLogLevelV2: ApplicationLogLevel[logLevel],
      environment: {
        ...props.environment,
        // Last, so every function logs and emits metrics under the same names.
        [ENV.logLevel]: logLevel,
        [POWERTOOLS_SERVICE_NAME]: SERVICE_NAME,
        [POWERTOOLS_METRICS_NAMESPACE]: METRICS_NAMESPACE,
      },
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: resolve(PROJECT_ROOT, 'package-lock.json'),
      bundling: {
        format: BUNDLING.format,
        target: BUNDLING.target,
        minify: BUNDLING.minify,
        sourceMap: BUNDLING.sourceMap,
        sourcesContent: BUNDLING.sourcesContent,
        mainFields: [...BUNDLING.mainFields],
        define: { __BUILD_STAMP__: BUILD_STAMP },
        banner: BUNDLING.banner,
        externalModules: [...BUNDLING.external],
        inject: bundleInject(props.handler),
        // esbuild runs in the project root (local bundling).
        esbuildArgs: { '--alias': Object.entries(BUNDLING.alias).map(([from, to]) => `${from}=${to}`) },
        commandHooks: {
          beforeBundling: () => [],
          beforeInstall: () => [],
          afterBundling: (inputDir: string, outputDir: string) => [
            ...(props.files ?? []).map((f) => `cp "${inputDir}/${f}" "${outputDir}/"`),
            ...runtimeFiles(props.runtimeModules ?? []).map(
              (f) => `mkdir -p "${outputDir}/${dirname(f)}" && cp "${inputDir}/${f}" "${outputDir}/${f}"`,
            ),
            ...lazyModuleCommands(inputDir, outputDir),
          ],
        },
      },
    });
  }

  get function(): IFunction {
    return this.fn;
  }
}

/** The files of the runtime modules a function imports (an unknown name fails the synth). */
export function runtimeFiles(modules: readonly string[]): string[] {
  return modules.flatMap((m) => {
    const files = RUNTIME_MODULES[m];
    if (!files) throw new Error(`no runtime module ${m} in RUNTIME_MODULES`);
    return [...files];
  });
}
