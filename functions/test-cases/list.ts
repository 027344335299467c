import { testCasesRoutes } from '../../shared/routes/test-cases.js';
import { httpHandler, page } from '../../shared/http/handler.js';
import { listTestCases } from '../../shared/domain/tests/test-cases.js';

export const handler = httpHandler(testCasesRoutes.list, async ({ auth, query }) =>
  page(await listTestCases(auth, query)),
);
