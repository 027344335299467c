import { httpHandler, ok } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { cancelRun } from '../../shared/domain/runs/runs.js';

export const handler = httpHandler({ handler: 'runs/cancel', params: IdParams }, async ({ auth, params }) =>
  ok(await cancelRun(auth, params.id)),
);
