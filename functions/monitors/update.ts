import { httpHandler, ok } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { MonitorUpdate } from '../../shared/schemas/monitors.js';
import { updateMonitor } from '../../shared/domain/monitors/monitors.js';

export const handler = httpHandler(
  { handler: 'monitors/update', params: IdParams, body: MonitorUpdate },
  async ({ auth, params, body }) => ok(await updateMonitor(auth, params.id, body)),
);
