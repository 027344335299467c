import { testsRoutes } from '../../shared/routes/tests.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { updateTest } from '../../shared/domain/tests/tests.js';

export const handler = httpHandler(testsRoutes.update, async ({ auth, params, body }) =>
  ok(await updateTest(auth, params.id, body)),
);
