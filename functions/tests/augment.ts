import { testsRoutes } from '../../shared/routes/tests.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { augmentTest } from '../../shared/domain/generation/actions.js';

export const handler = httpHandler(testsRoutes.augment, async ({ auth, params, body }) =>
  ok(await augmentTest(auth, params.id, body)),
);
