import { httpHandler, page } from '../../shared/http/handler.js';
import { TestListQuery } from '../../shared/schemas/tests.js';
import { listTests } from '../../shared/domain/tests/tests.js';

export const handler = httpHandler({ handler: 'tests/list', query: TestListQuery }, async ({ auth, query }) =>
  page(await listTests(auth, query)),
);
