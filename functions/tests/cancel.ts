import { testsRoutes } from '../../shared/routes/tests.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { cancelTest } from '../../shared/domain/generation/actions.js';

export const handler = httpHandler(testsRoutes.cancel, async ({ auth, params }) =>
  ok(await cancelTest(auth, params.id)),
);
