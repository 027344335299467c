import { versionsRoutes } from '../../shared/routes/versions.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { updateVersion } from '../../shared/domain/catalog/versions.js';

export const handler = httpHandler(versionsRoutes.update, async ({ auth, params, body }) =>
  ok(await updateVersion(auth, params.id, body)),
);
