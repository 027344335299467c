import { httpHandler, page } from '../../shared/http/handler.js';
import { VersionListQuery } from '../../shared/schemas/products.js';
import { listVersions } from '../../shared/domain/catalog/versions.js';

export const handler = httpHandler({ handler: 'versions/list', query: VersionListQuery }, async ({ auth, query }) =>
  page(await listVersions(auth, query)),
);
