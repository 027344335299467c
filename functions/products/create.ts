import { created, httpHandler } from '../../shared/http/handler.js';
import { ProductCreate } from '../../shared/schemas/products.js';
import { createProduct } from '../../shared/domain/catalog/products.js';

export const handler = httpHandler({ handler: 'products/create', body: ProductCreate }, async ({ auth, body }) =>
  created(await createProduct(auth, body)),
);
