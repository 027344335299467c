import type { Access } from '../routes/route.js';
import type { ErrorObject } from 'ajv';
import { describeErrors } from '../schemas/describe.js';
import { ValidationError } from '../errors.js';

export type Where = 'body' | 'query' | 'path';
export type Validator<T> = (value: unknown) => T;

/** An ajv validate function, compiled at load or precompiled at build time. */
export interface AjvFunction {
  (value: unknown): boolean;
  errors?: Partial<ErrorObject>[] | null;
}

/** A route's three validators (no body validator when the route takes no body). */
export interface RouteValidators {
  /** Who may call the route (its line in shared/routes.ts; written into the precompiled module in a bundle). */
  access: Access;
  params: Validator<unknown>;
  query: Validator<unknown>;
  body?: Validator<unknown>;
}

/** The schemas a route declares (TypeBox objects; plain JSON Schema to ajv). */
export interface RouteSchemas {
  params: object;
  query: object;
  body?: object;
}

/**
 * Wraps an ajv function: returns the value (defaults applied, strings coerced) or throws a
 * ValidationError whose message names the field and the rule.
 */
export function toValidator<T>(fn: AjvFunction, where: Where): Validator<T> {
  return (value: unknown) => {
    if (fn(value)) return value as T;
    throw new ValidationError(describeErrors(fn.errors as ErrorObject[] | null | undefined, where));
  };
}

const registered = new Map<string, RouteValidators>();

/** Called by a precompiled module (.build/validators/<handler>.ts, injected into the bundle) as it loads. */
export function registerValidators(handler: string, validators: RouteValidators): void {
  registered.set(handler, validators);
}

/** A route's precompiled validators, when its bundle registered them. */
export function registeredValidators(handler: string): RouteValidators | undefined {
  return registered.get(handler);
}
