import { execSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Duration } from 'aws-cdk-lib';
import { Architecture, Runtime, Tracing, type IFunction } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { IRole } from 'aws-cdk-lib/aws-iam';
import type { ILogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

/** The project root; `entry` is resolved from it, never from import.meta.url of a bundle. */
export const PROJECT_ROOT = resolve(import.meta.dirname, '..', '..');

function stamp(): { version: string; commit: string; buildDate: string } {
  const pkg = JSON.parse(readFileSync(resolve(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string };
  let commit = process.env.BUILD_COMMIT ?? 'unknown';
  if (!process.env.BUILD_COMMIT) {
    try {
      commit = execSync('git rev-parse --short HEAD', { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
    } catch {
      /* not a git checkout: the stamp says unknown */
    }
  }
  return { version: pkg.version, commit, buildDate: new Date().toISOString() };
}

/** Computed once per synth, so every function of one deploy carries the same stamp. */
const BUILD_STAMP = JSON.stringify(stamp());

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
}

/**
 * Every function of the service: Node.js 22 on arm64, ESM bundle (minified, source maps) with
 * the build stamp defined at bundle time, X-Ray tracing, a shared role and log group.
 */
export class AppFunction extends Construct {
  readonly fn: NodejsFunction;

  constructor(scope: Construct, id: string, props: AppFunctionProps) {
    super(scope, id);
    this.fn = new NodejsFunction(this, 'Fn', {
      entry: resolve(PROJECT_ROOT, 'functions', `${props.handler}.ts`),
      handler: 'handler',
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout ?? Duration.seconds(29),
      tracing: Tracing.ACTIVE,
      role: props.role,
      logGroup: props.logGroup,
      environment: { NODE_OPTIONS: '--enable-source-maps', ...props.environment },
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: resolve(PROJECT_ROOT, 'package-lock.json'),
      bundling: {
        format: OutputFormat.ESM,
        target: 'node22',
        minify: true,
        sourceMap: true,
        mainFields: ['module', 'main'],
        define: { __BUILD_STAMP__: BUILD_STAMP },
        banner: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
        externalModules: [],
        ...(props.files?.length
          ? {
              commandHooks: {
                beforeBundling: () => [],
                beforeInstall: () => [],
                afterBundling: (inputDir: string, outputDir: string) => props.files!.map((f) => `cp "${inputDir}/${f}" "${outputDir}/"`),
              },
            }
          : {}),
      },
    });
  }

  get function(): IFunction {
    return this.fn;
  }
}
