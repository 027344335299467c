import { httpHandler, ok } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { cancelTest } from '../../shared/domain/generation/actions.js';

export const handler = httpHandler({ handler: 'tests/cancel', params: IdParams }, async ({ auth, params }) =>
  ok(await cancelTest(auth, params.id)),
);
