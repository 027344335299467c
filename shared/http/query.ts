import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { TObject } from '@sinclair/typebox';
import { ValidationError } from './errors.js';

/**
 * Collects query parameters for validation: array-typed parameters accept repeated keys and
 * comma-separated values; a scalar given twice is a 400. Types are coerced by the validator.
 */
export function normaliseQuery(event: Pick<APIGatewayProxyEvent, 'queryStringParameters' | 'multiValueQueryStringParameters'>, schema: TObject): Record<string, unknown> {
  const multi: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(event.multiValueQueryStringParameters ?? {})) if (v) multi[k] = [...v];
  for (const [k, v] of Object.entries(event.queryStringParameters ?? {})) if (v !== undefined && !multi[k]) multi[k] = [v];
  const props = (schema.properties ?? {}) as Record<string, { type?: unknown }>;
  const out: Record<string, unknown> = {};
  for (const [key, values] of Object.entries(multi)) {
    const isArray = props[key]?.type === 'array';
    if (isArray) {
      out[key] = values.flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v.length > 0);
    } else {
      if (values.length > 1) throw new ValidationError(`query parameter '${key}' must be given once`);
      out[key] = values[0];
    }
  }
  return out;
}
