import { productsRoutes } from '../../shared/routes/products.js';
import { created, httpHandler } from '../../shared/http/handler.js';
import { createProduct } from '../../shared/domain/catalog/products.js';

export const handler = httpHandler(productsRoutes.create, async ({ auth, body }) =>
  created(await createProduct(auth, body)),
);
