import { httpHandler, ok } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { getProduct } from '../../shared/domain/catalog/products.js';

export const handler = httpHandler({ handler: 'products/get', params: IdParams }, async ({ auth, params }) =>
  ok(await getProduct(auth, params.id)),
);
