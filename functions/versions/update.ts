import { httpHandler, ok } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { VersionUpdate } from '../../shared/schemas/products.js';
import { updateVersion } from '../../shared/domain/catalog/versions.js';

export const handler = httpHandler(
  { handler: 'versions/update', params: IdParams, body: VersionUpdate },
  async ({ auth, params, body }) => ok(await updateVersion(auth, params.id, body)),
);
