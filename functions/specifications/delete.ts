import { specificationsRoutes } from '../../shared/routes/specifications.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { deleteSpecification } from '../../shared/domain/metrics/specifications.js';

export const handler = httpHandler(specificationsRoutes.delete, async ({ auth, params }) =>
  ok(await deleteSpecification(auth, params.id)),
);
