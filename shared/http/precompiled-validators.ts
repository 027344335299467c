import { registeredValidators, type RouteValidators } from './validators.js';

/**
 * `#route-validators` in a function bundle (the esbuild alias of infra/constructs/app-function.ts):
 * the validators the bundle's entry, shared/schemas/precompiled/<handler>.ts, registered as it
 * loaded. No schema compiler is bundled; the schemas are not read here.
 */
export function routeValidators(handler: string): RouteValidators {
  const validators = registeredValidators(handler);
  if (!validators) throw new Error(`no precompiled validators for ${handler}: run \`npm run validators\` and bundle shared/schemas/precompiled/${handler}.ts`);
  return validators;
}
