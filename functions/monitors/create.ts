import { created, httpHandler } from '../../shared/http/handler.js';
import { MonitorCreate } from '../../shared/schemas/monitors.js';
import { createMonitor } from '../../shared/domain/monitors/monitors.js';

export const handler = httpHandler({ handler: 'monitors/create', body: MonitorCreate }, async ({ auth, body }) =>
  created(await createMonitor(auth, body)),
);
