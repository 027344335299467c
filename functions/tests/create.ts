import { created, httpHandler } from '../../shared/http/handler.js';
import { TestCreate } from '../../shared/schemas/tests.js';
import { createTest } from '../../shared/domain/tests/tests.js';

export const handler = httpHandler({ handler: 'tests/create', body: TestCreate }, async ({ auth, body }) =>
  created(await createTest(auth, body)),
);
