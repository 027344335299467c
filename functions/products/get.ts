import { productsRoutes } from '../../shared/routes/products.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { getProduct } from '../../shared/domain/catalog/products.js';

export const handler = httpHandler(productsRoutes.get, async ({ auth, params }) =>
  ok(await getProduct(auth, params.id)),
);
