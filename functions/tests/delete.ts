import { httpHandler, ok } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { deleteTest } from '../../shared/domain/tests/tests.js';

export const handler = httpHandler({ handler: 'tests/delete', params: IdParams }, async ({ auth, params }) =>
  ok(await deleteTest(auth, params.id)),
);
