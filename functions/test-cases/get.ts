import { httpHandler, ok } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { getTestCase } from '../../shared/domain/tests/test-cases.js';

export const handler = httpHandler({ handler: 'test-cases/get', params: IdParams }, async ({ auth, params }) =>
  ok(await getTestCase(auth, params.id)),
);
