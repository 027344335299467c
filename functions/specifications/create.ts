import { specificationsRoutes } from '../../shared/routes/specifications.js';
import { created, httpHandler } from '../../shared/http/handler.js';
import { createSpecification } from '../../shared/domain/metrics/specifications.js';

export const handler = httpHandler(specificationsRoutes.create, async ({ auth, body }) =>
  created(await createSpecification(auth, body)),
);
