import { monitorsRoutes } from '../../shared/routes/monitors.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { deleteMonitor } from '../../shared/domain/monitors/monitors.js';

export const handler = httpHandler(monitorsRoutes.delete, async ({ auth, params }) =>
  ok(await deleteMonitor(auth, params.id)),
);
