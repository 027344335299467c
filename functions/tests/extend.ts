import { httpHandler, ok } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { TestGenerateMore } from '../../shared/schemas/tests.js';
import { extendTest } from '../../shared/domain/generation/actions.js';

export const handler = httpHandler(
  { handler: 'tests/extend', params: IdParams, body: TestGenerateMore, bodyOptional: true },
  async ({ auth, params, body }) => ok(await extendTest(auth, params.id, body)),
);
