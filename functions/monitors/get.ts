import { monitorsRoutes } from '../../shared/routes/monitors.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { getMonitor } from '../../shared/domain/monitors/monitors.js';

export const handler = httpHandler(monitorsRoutes.get, async ({ auth, params }) =>
  ok(await getMonitor(auth, params.id)),
);
