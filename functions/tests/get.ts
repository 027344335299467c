import { httpHandler, ok } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { getTest } from '../../shared/domain/tests/tests.js';

export const handler = httpHandler({ handler: 'tests/get', params: IdParams }, async ({ auth, params }) =>
  ok(await getTest(auth, params.id)),
);
