import { specificationsRoutes } from '../../shared/routes/specifications.js';
import { httpHandler, page } from '../../shared/http/handler.js';
import { listLinkedMetrics } from '../../shared/domain/metrics/specifications.js';

export const handler = httpHandler(specificationsRoutes.listMetrics, async ({ auth, params }) =>
  page(await listLinkedMetrics(auth, params.id)),
);
