import { specificationsRoutes } from '../../shared/routes/specifications.js';
import { httpHandler, page } from '../../shared/http/handler.js';
import { listSpecifications } from '../../shared/domain/metrics/specifications.js';

export const handler = httpHandler(specificationsRoutes.list, async ({ auth, query }) =>
  page(await listSpecifications(auth, query)),
);
