import { httpHandler, ok } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { getVersion } from '../../shared/domain/catalog/versions.js';

export const handler = httpHandler({ handler: 'versions/get', params: IdParams }, async ({ auth, params }) =>
  ok(await getVersion(auth, params.id)),
);
