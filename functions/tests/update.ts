import { httpHandler, ok } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { TestUpdate } from '../../shared/schemas/tests.js';
import { updateTest } from '../../shared/domain/tests/tests.js';

export const handler = httpHandler(
  { handler: 'tests/update', params: IdParams, body: TestUpdate },
  async ({ auth, params, body }) => ok(await updateTest(auth, params.id, body)),
);
