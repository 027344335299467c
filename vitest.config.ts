import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { INTEGRATION_OWN_MODULES, UNIT_OWN_MODULES } from './test/support/isolation.js';

const env = { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', LOG_LEVEL: 'error' };

const unit = {
  include: ['test/unit/**/*.test.ts'],
  setupFiles: ['test/support/unit-setup.ts', 'test/support/quiet-logs.ts'],
  env: { ...env, TABLE_NAME: 'unit-tests-have-no-table', BUCKET_NAME: 'unit-tests-have-no-bucket' },
  // The fuzzed properties take a second alone and several beside the integration and e2e projects on
  // 2 cores: a timeout is a hang guard, not a speed check.
  testTimeout: 30_000,
};
/** What every integration file needs: DynamoDB Local and s3rver, the local environment, quiet logs. */
const integration = {
  include: ['test/integration/**/*.test.ts'],
  globalSetup: ['test/support/dynamo-global-setup.ts'],
  setupFiles: ['test/support/env-setup.ts', 'test/support/quiet-logs.ts'],
  env,
  testTimeout: 30_000,
  hookTimeout: 60_000,
};

export default defineConfig({
  test: {
    // What a test writes to the console (the local gateway's console.error of an expected 500) is
    // printed only when the test fails; the service's log lines go through test/support/quiet-logs.ts.
    silent: 'passed-only',
    // Vitest's default is one worker less than the cores: a single worker on 2 cores, which ran every
    // file one after another while its tests waited on DynamoDB Local, s3rver or a child process.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      {
        test: { ...unit, name: 'unit', exclude: UNIT_OWN_MODULES, isolate: false },
      },
      {
        test: { ...unit, name: 'unit-isolated', include: UNIT_OWN_MODULES },
      },
      {
        test: {
          ...integration,
          name: 'integration',
          exclude: INTEGRATION_OWN_MODULES,
          // The files share one import of the service's modules per worker (the SDK, the local
          // runtime), as the infra files share aws-cdk-lib: each resets what it changes in its hooks;
          // a file that needs modules of its own runs isolated (test/support/isolation.ts).
          isolate: false,
        },
      },
      {
        test: { ...integration, name: 'integration-isolated', include: INTEGRATION_OWN_MODULES },
      },
      {
        test: {
          name: 'infra',
          include: ['test/infra/**/*.test.ts'],
          // The files synthesize stacks and share no state: one import of aws-cdk-lib and the
          // stack's modules per worker, not one per file.
          isolate: false,
          env,
          testTimeout: 120_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          globalSetup: ['test/support/server-global-setup.ts'],
          setupFiles: ['test/support/e2e-setup.ts'],
          // One server for every file, two files at a time: no file counts on another's records (the
          // demo organization's are read, not counted), and the monitor flow's deadline leaves room
          // for the raw-socket and CLI tests beside it (11 MB bodies, spawned CLIs). One at a time,
          // after the other projects, they left the second core idle for a minute and a half.
          env,
          testTimeout: 60_000,
          hookTimeout: 90_000,
        },
      },
    ],
  },
});
