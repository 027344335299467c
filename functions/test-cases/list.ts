import { httpHandler, page } from '../../shared/http/handler.js';
import { TestCaseListQuery } from '../../shared/schemas/tests.js';
import { listTestCases } from '../../shared/domain/tests/test-cases.js';

export const handler = httpHandler({ handler: 'test-cases/list', query: TestCaseListQuery }, async ({ auth, query }) =>
  page(await listTestCases(auth, query)),
);
