import { httpHandler, ok } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { deleteMonitor } from '../../shared/domain/monitors/monitors.js';

export const handler = httpHandler({ handler: 'monitors/delete', params: IdParams }, async ({ auth, params }) =>
  ok(await deleteMonitor(auth, params.id)),
);
