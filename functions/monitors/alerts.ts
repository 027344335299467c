import { monitorsRoutes } from '../../shared/routes/monitors.js';
import { httpHandler, page } from '../../shared/http/handler.js';
import { listMonitorAlerts } from '../../shared/domain/monitors/alerts.js';

export const handler = httpHandler(monitorsRoutes.alerts, async ({ auth, params, query }) =>
  page(await listMonitorAlerts(auth, params.id, query)),
);
