import { registeredValidators, type RouteValidators } from './validators.js';

/**
 * `#route-validators` in a function bundle (the esbuild alias of infra/constructs/app-function.ts):
 * the validators the module injected ahead of the handler, .build/validators/<handler>.ts, registered as it
 * loaded. No schema compiler is bundled; the schemas are not read here.
 */
export function routeValidators(handler: string): RouteValidators {
  const validators = registeredValidators(handler);
  if (!validators)
    throw new Error(
      `no precompiled validators for ${handler}: generate them (infra/validators.ts) and inject .build/validators/${handler}.ts`,
    );
  return validators;
}
