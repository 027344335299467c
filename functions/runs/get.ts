import { httpHandler, ok } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { getRunWithLabels } from '../../shared/domain/review/run-view.js';

export const handler = httpHandler({ handler: 'runs/get', params: IdParams }, async ({ auth, params }) =>
  ok(await getRunWithLabels(auth, params.id)),
);
