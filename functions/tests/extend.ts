import { testsRoutes } from '../../shared/routes/tests.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { extendTest } from '../../shared/domain/generation/actions.js';

export const handler = httpHandler(testsRoutes.extend, async ({ auth, params, body }) =>
  ok(await extendTest(auth, params.id, body)),
);
