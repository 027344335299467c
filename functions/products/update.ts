import { productsRoutes } from '../../shared/routes/products.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { updateProduct } from '../../shared/domain/catalog/products.js';

export const handler = httpHandler(productsRoutes.update, async ({ auth, params, body }) =>
  ok(await updateProduct(auth, params.id, body)),
);
