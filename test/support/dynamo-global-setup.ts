import type { TestProject } from 'vitest/node';
import { freePort, startDynamoDbLocal, startS3, type RunningService } from '../../infra/local/services.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Integration tests: a real DynamoDB Local (in memory) and s3rver, started once for the project. */
export default async function setup(project: TestProject) {
  // A loaded machine can take well over 30 s to start the JVM.
  const dynamo: RunningService = await startDynamoDbLocal({ port: await freePort(), startTimeoutMs: 120_000 });
  const s3dir = mkdtempSync(join(tmpdir(), 'evp-it-s3-'));
  const bucket = 'integration-bucket';
  const s3 = await startS3({ port: await freePort(), directory: s3dir, bucket });
  const env: Record<string, string> = {
    TABLE_NAME: 'integration',
    BUCKET_NAME: bucket,
    DYNAMODB_ENDPOINT: dynamo.endpoint,
    S3_ENDPOINT: s3.endpoint,
    EVALUATION_QUEUE_URL: 'local://evaluation-queue',
    EVALUATOR_FUNCTION_NAME: 'local-evaluator',
    SCANNER_FUNCTION_NAME: 'local-scanner',
    AGGREGATOR_FUNCTION_NAME: 'local-aggregator',
    RUNNER_FUNCTION_NAME: 'local-runner',
    // Nothing listens here: probes must report `unreachable` rather than fail.
    LAMBDA_ENDPOINT: `http://127.0.0.1:${await freePort()}`,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
  };
  Object.assign(process.env, env);
  const { ensureTable } = await import('../../infra/local/bootstrap.js');
  await ensureTable();
  const { seedPlatform } = await import('../../shared/domain/metrics/predefined/seed.js');
  await seedPlatform();
  project.provide('localEnv', env);
  return async () => {
    await s3.stop();
    await dynamo.stop();
    rmSync(s3dir, { recursive: true, force: true });
  };
}
