import * as Type from '@sinclair/typebox';
import { route } from './route.js';
import { IdParams } from '../schemas/common.js';
import { ProductCreate, ProductListQuery, ProductUpdate } from '../schemas/products.js';
import { Deleted } from '../schemas/answers.js';
import { ProductRecord } from '../schemas/products.js';

export const productsRoutes = {
  create: route('POST', '/products', 'products/create', 'write', { body: ProductCreate, response: ProductRecord }),
  list: route('GET', '/products', 'products/list', 'read', {
    query: ProductListQuery,
    response: Type.Array(ProductRecord),
  }),
  get: route('GET', '/products/{id}', 'products/get', 'read', { params: IdParams, response: ProductRecord }),
  update: route('PATCH', '/products/{id}', 'products/update', 'write', {
    params: IdParams,
    body: ProductUpdate,
    response: ProductRecord,
  }),
  delete: route('DELETE', '/products/{id}', 'products/delete', 'write', { params: IdParams, response: Deleted }),
};
