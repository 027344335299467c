import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startDynamoDbLocal, startS3 } from '../../infra/local/services.js';

/**
 * JVM options for a test run's DynamoDB Local (JAVA_TOOL_OPTIONS), unless the environment sets its
 * own: it is the largest CPU user of the integration and e2e projects and lives for one run, where
 * the client compiler alone and the single-threaded collector take less of a 2-core machine than
 * the JVM's defaults (C2 compilations and parallel GC threads).
 */
export const TEST_JAVA_OPTIONS = process.env.JAVA_TOOL_OPTIONS ?? '-XX:TieredStopAtLevel=1 -XX:+UseSerialGC';

export interface TestServices {
  /** What was put into process.env (the handlers read it at load). */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/**
 * DynamoDB Local and s3rver on free ports (or the running ones named by DYNAMODB_ENDPOINT /
 * S3_ENDPOINT when `reuseRunning`), the environment the handlers read set to them, the table
 * created and the platform seeded. Used by the integration setup and `npm run fuzz`.
 */
export async function startTestServices(options: {
  tableName: string;
  bucket: string;
  reuseRunning?: boolean;
}): Promise<TestServices> {
  const reuse = options.reuseRunning === true;
  // A loaded machine can take well over 30 s to start the JVM.
  const dynamo =
    reuse && process.env.DYNAMODB_ENDPOINT
      ? { endpoint: process.env.DYNAMODB_ENDPOINT, stop: async () => undefined }
      : await startDynamoDbLocal({ port: await freePort(), startTimeoutMs: 120_000 });
  const s3dir = mkdtempSync(join(tmpdir(), 'evp-test-s3-'));
  const s3 =
    reuse && process.env.S3_ENDPOINT
      ? { endpoint: process.env.S3_ENDPOINT, stop: async () => undefined }
      : await startS3({ port: await freePort(), directory: s3dir, bucket: options.bucket });
  const stop = async () => {
    await s3.stop();
    await dynamo.stop();
    rmSync(s3dir, { recursive: true, force: true });
  };
  try {
    const env: Record<string, string> = {
      TABLE_NAME: options.tableName,
      BUCKET_NAME: options.bucket,
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      S3_ENDPOINT: s3.endpoint,
      EVALUATION_QUEUE_URL: 'local://evaluation-queue',
      EVALUATOR_FUNCTION_NAME: 'local-evaluator',
      SCANNER_FUNCTION_NAME: 'local-scanner',
      AGGREGATOR_FUNCTION_NAME: 'local-aggregator',
      RUNNER_FUNCTION_NAME: 'local-runner',
      GENERATOR_FUNCTION_NAME: 'local-generator',
      // Nothing listens here: probes must report `unreachable` rather than fail.
      LAMBDA_ENDPOINT: `http://127.0.0.1:${await freePort()}`,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
    };
    Object.assign(process.env, env);
    // Modules that read the environment at load come after it is set.
    const { ensureTable } = await import('../../infra/local/bootstrap.js');
    await ensureTable();
    const { seedPlatform } = await import('../../shared/domain/metrics/predefined/seed.js');
    await seedPlatform();
    return { env, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
