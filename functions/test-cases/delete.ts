import { testCasesRoutes } from '../../shared/routes/test-cases.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { deleteTestCase } from '../../shared/domain/tests/test-cases.js';

export const handler = httpHandler(testCasesRoutes.delete, async ({ auth, params }) =>
  ok(await deleteTestCase(auth, params.id)),
);
