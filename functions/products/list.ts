import { productsRoutes } from '../../shared/routes/products.js';
import { httpHandler, page } from '../../shared/http/handler.js';
import { listProducts } from '../../shared/domain/catalog/products.js';

export const handler = httpHandler(productsRoutes.list, async ({ auth, query }) =>
  page(await listProducts(auth, query)),
);
