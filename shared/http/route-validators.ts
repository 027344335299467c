import type { TSchema } from '@sinclair/typebox';
import { routeOf } from '../routes.js';
import { compile } from '../schemas/ajv.js';
import type { RouteSchemas, RouteValidators } from './validators.js';

/**
 * `#route-validators` when the code runs unbundled (the local server, tests, scripts): compiles
 * the route's schemas with ajv at load. A function bundle resolves `#route-validators` to the
 * route's precompiled module instead (.build/validators/<handler>.ts, generated before bundling
 * by infra/validators.ts from the same schemas), so no schema compiler ships in a function.
 */
export function routeValidators(handler: string, schemas: RouteSchemas): RouteValidators {
  return {
    access: routeOf(handler).access,
    params: compile(schemas.params as TSchema, 'path'),
    query: compile(schemas.query as TSchema, 'query'),
    body: schemas.body ? compile(schemas.body as TSchema, 'body') : undefined,
  };
}
