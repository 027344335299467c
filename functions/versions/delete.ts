import { versionsRoutes } from '../../shared/routes/versions.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { deleteVersion } from '../../shared/domain/catalog/versions.js';

export const handler = httpHandler(versionsRoutes.delete, async ({ auth, params }) =>
  ok(await deleteVersion(auth, params.id)),
);
