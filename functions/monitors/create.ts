import { monitorsRoutes } from '../../shared/routes/monitors.js';
import { created, httpHandler } from '../../shared/http/handler.js';
import { createMonitor } from '../../shared/domain/monitors/monitors.js';

export const handler = httpHandler(monitorsRoutes.create, async ({ auth, body }) =>
  created(await createMonitor(auth, body)),
);
