import { testsRoutes } from '../../shared/routes/tests.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { deleteTest } from '../../shared/domain/tests/tests.js';

export const handler = httpHandler(testsRoutes.delete, async ({ auth, params }) =>
  ok(await deleteTest(auth, params.id)),
);
