import { testCasesRoutes } from '../../shared/routes/test-cases.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { getTestCase } from '../../shared/domain/tests/test-cases.js';

export const handler = httpHandler(testCasesRoutes.get, async ({ auth, params }) =>
  ok(await getTestCase(auth, params.id)),
);
