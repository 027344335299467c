import type { TestProject } from 'vitest/node';
import { startTestServices } from './test-services.js';

/** Integration tests: a real DynamoDB Local (in memory) and s3rver, started once for the project. */
export default async function setup(project: TestProject) {
  const services = await startTestServices({ tableName: 'integration', bucket: 'integration-bucket' });
  project.provide('localEnv', services.env);
  return services.stop;
}
