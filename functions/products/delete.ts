import { productsRoutes } from '../../shared/routes/products.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { deleteProduct } from '../../shared/domain/catalog/products.js';

export const handler = httpHandler(productsRoutes.delete, async ({ auth, params }) =>
  ok(await deleteProduct(auth, params.id)),
);
