import { monitorsRoutes } from '../../shared/routes/monitors.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { monitorResults } from '../../shared/domain/monitors/results.js';

export const handler = httpHandler(monitorsRoutes.results, async ({ auth, params, query }) =>
  ok(await monitorResults(auth, params.id, query.days ?? 7)),
);
