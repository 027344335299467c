import { versionsRoutes } from '../../shared/routes/versions.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { getVersion } from '../../shared/domain/catalog/versions.js';

export const handler = httpHandler(versionsRoutes.get, async ({ auth, params }) =>
  ok(await getVersion(auth, params.id)),
);
