import { testsRoutes } from '../../shared/routes/tests.js';
import { created, httpHandler } from '../../shared/http/handler.js';
import { createTest } from '../../shared/domain/tests/tests.js';

export const handler = httpHandler(testsRoutes.create, async ({ auth, body }) => created(await createTest(auth, body)));
