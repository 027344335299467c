import { httpHandler, ok } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { deleteTestCase } from '../../shared/domain/tests/test-cases.js';

export const handler = httpHandler({ handler: 'test-cases/delete', params: IdParams }, async ({ auth, params }) =>
  ok(await deleteTestCase(auth, params.id)),
);
