import { httpHandler, page } from '../../shared/http/handler.js';
import { ProductListQuery } from '../../shared/schemas/products.js';
import { listProducts } from '../../shared/domain/catalog/products.js';

export const handler = httpHandler({ handler: 'products/list', query: ProductListQuery }, async ({ auth, query }) =>
  page(await listProducts(auth, query)),
);
