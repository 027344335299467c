import { httpHandler, ok } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { ProductUpdate } from '../../shared/schemas/products.js';
import { updateProduct } from '../../shared/domain/catalog/products.js';

export const handler = httpHandler(
  { handler: 'products/update', params: IdParams, body: ProductUpdate },
  async ({ auth, params, body }) => ok(await updateProduct(auth, params.id, body)),
);
