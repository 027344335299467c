import { monitorsRoutes } from '../../shared/routes/monitors.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { updateMonitor } from '../../shared/domain/monitors/monitors.js';

export const handler = httpHandler(monitorsRoutes.update, async ({ auth, params, body }) =>
  ok(await updateMonitor(auth, params.id, body)),
);
