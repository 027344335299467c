import { httpHandler, ok } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { getRunFor } from '../../shared/domain/runs/runs.js';

export const handler = httpHandler({ handler: 'runs/get', params: IdParams }, async ({ auth, params }) =>
  ok(await getRunFor(auth, params.id)),
);
