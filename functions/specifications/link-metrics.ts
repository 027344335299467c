import { specificationsRoutes } from '../../shared/routes/specifications.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { linkMetrics } from '../../shared/domain/metrics/specifications.js';

export const handler = httpHandler(specificationsRoutes.linkMetrics, async ({ auth, params, body }) =>
  ok(await linkMetrics(auth, params.id, body)),
);
