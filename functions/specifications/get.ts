import { specificationsRoutes } from '../../shared/routes/specifications.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { getSpecification } from '../../shared/domain/metrics/specifications.js';

export const handler = httpHandler(specificationsRoutes.get, async ({ auth, params }) =>
  ok(await getSpecification(auth, params.id)),
);
