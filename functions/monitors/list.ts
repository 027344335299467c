import { monitorsRoutes } from '../../shared/routes/monitors.js';
import { httpHandler, page } from '../../shared/http/handler.js';
import { listMonitors } from '../../shared/domain/monitors/monitors.js';

export const handler = httpHandler(monitorsRoutes.list, async ({ auth, query }) =>
  page(await listMonitors(auth, query)),
);
