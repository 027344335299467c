import { testsRoutes } from '../../shared/routes/tests.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { getTest } from '../../shared/domain/tests/tests.js';

export const handler = httpHandler(testsRoutes.get, async ({ auth, params }) => ok(await getTest(auth, params.id)));
