import { httpHandler, page } from '../../shared/http/handler.js';
import { MonitorListQuery } from '../../shared/schemas/monitors.js';
import { listMonitors } from '../../shared/domain/monitors/monitors.js';

export const handler = httpHandler({ handler: 'monitors/list', query: MonitorListQuery }, async ({ auth, query }) =>
  page(await listMonitors(auth, query)),
);
