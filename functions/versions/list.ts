import { versionsRoutes } from '../../shared/routes/versions.js';
import { httpHandler, page } from '../../shared/http/handler.js';
import { listVersions } from '../../shared/domain/catalog/versions.js';

export const handler = httpHandler(versionsRoutes.list, async ({ auth, query }) =>
  page(await listVersions(auth, query)),
);
