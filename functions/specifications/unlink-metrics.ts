import { specificationsRoutes } from '../../shared/routes/specifications.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { unlinkMetrics } from '../../shared/domain/metrics/specifications.js';

export const handler = httpHandler(specificationsRoutes.unlinkMetrics, async ({ auth, params, body }) =>
  ok(await unlinkMetrics(auth, params.id, body)),
);
