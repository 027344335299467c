import type { TestProject } from 'vitest/node';
import { startTestServices, TEST_JAVA_OPTIONS } from './test-services.js';

/** Integration tests: a real DynamoDB Local (in memory) and s3rver, started once for the project. */
export default async function setup(project: TestProject) {
  // The JVM of DynamoDB Local reads them from its environment, inherited from this process.
  const javaOptions = process.env.JAVA_TOOL_OPTIONS;
  process.env.JAVA_TOOL_OPTIONS = TEST_JAVA_OPTIONS;
  const services = await startTestServices({ tableName: 'integration', bucket: 'integration-bucket' }).finally(() => {
    if (javaOptions === undefined) delete process.env.JAVA_TOOL_OPTIONS;
  });
  project.provide('localEnv', services.env);
  return services.stop;
}
