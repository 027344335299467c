import { httpHandler, ok } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { deleteProduct } from '../../shared/domain/catalog/products.js';

export const handler = httpHandler({ handler: 'products/delete', params: IdParams }, async ({ auth, params }) =>
  ok(await deleteProduct(auth, params.id)),
);
