import { testsRoutes } from '../../shared/routes/tests.js';
import { httpHandler, page } from '../../shared/http/handler.js';
import { listTests } from '../../shared/domain/tests/tests.js';

export const handler = httpHandler(testsRoutes.list, async ({ auth, query }) => page(await listTests(auth, query)));
