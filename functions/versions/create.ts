import { versionsRoutes } from '../../shared/routes/versions.js';
import { created, httpHandler } from '../../shared/http/handler.js';
import { createVersion } from '../../shared/domain/catalog/versions.js';

export const handler = httpHandler(versionsRoutes.create, async ({ auth, body }) =>
  created(await createVersion(auth, body)),
);
