import { created, httpHandler } from '../../shared/http/handler.js';
import { TestCaseCreate } from '../../shared/schemas/tests.js';
import { createTestCase } from '../../shared/domain/tests/test-cases.js';

export const handler = httpHandler({ handler: 'test-cases/create', body: TestCaseCreate }, async ({ auth, body }) =>
  created(await createTestCase(auth, body)),
);
