import { specificationsRoutes } from '../../shared/routes/specifications.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { updateSpecification } from '../../shared/domain/metrics/specifications.js';

export const handler = httpHandler(specificationsRoutes.update, async ({ auth, params, body }) =>
  ok(await updateSpecification(auth, params.id, body)),
);
