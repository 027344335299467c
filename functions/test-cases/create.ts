import { testCasesRoutes } from '../../shared/routes/test-cases.js';
import { created, httpHandler } from '../../shared/http/handler.js';
import { createTestCase } from '../../shared/domain/tests/test-cases.js';

export const handler = httpHandler(testCasesRoutes.create, async ({ auth, body }) =>
  created(await createTestCase(auth, body)),
);
