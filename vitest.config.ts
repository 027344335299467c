import { defineConfig } from 'vitest/config';

const env = { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', LOG_LEVEL: 'error' };

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          setupFiles: ['test/support/unit-setup.ts'],
          env: { ...env, TABLE_NAME: 'unit-tests-have-no-table', BUCKET_NAME: 'unit-tests-have-no-bucket' },
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          globalSetup: ['test/support/dynamo-global-setup.ts'],
          setupFiles: ['test/support/env-setup.ts'],
          env,
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'infra',
          include: ['test/infra/**/*.test.ts'],
          env,
          testTimeout: 120_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          globalSetup: ['test/support/server-global-setup.ts'],
          // One server for every file: run them one at a time, so the raw-socket and CLI tests
          // (11 MB bodies, spawned CLIs) do not slow the monitor flow past its deadline.
          fileParallelism: false,
          env,
          testTimeout: 60_000,
          hookTimeout: 90_000,
        },
      },
    ],
  },
});
