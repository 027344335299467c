import { httpHandler, ok } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { deleteVersion } from '../../shared/domain/catalog/versions.js';

export const handler = httpHandler({ handler: 'versions/delete', params: IdParams }, async ({ auth, params }) =>
  ok(await deleteVersion(auth, params.id)),
);
