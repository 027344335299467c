import { created, httpHandler } from '../../shared/http/handler.js';
import { VersionCreate } from '../../shared/schemas/products.js';
import { createVersion } from '../../shared/domain/catalog/versions.js';

export const handler = httpHandler({ handler: 'versions/create', body: VersionCreate }, async ({ auth, body }) =>
  created(await createVersion(auth, body)),
);
