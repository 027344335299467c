import { httpHandler, ok } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { getMonitor } from '../../shared/domain/monitors/monitors.js';

export const handler = httpHandler({ handler: 'monitors/get', params: IdParams }, async ({ auth, params }) =>
  ok(await getMonitor(auth, params.id)),
);
