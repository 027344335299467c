import { JSONPath } from 'jsonpath-plus';
import { ValidationError } from '../../errors.js';
import { compileUserSchema } from '../../schemas/user-schemas.js';
import { compileTemplate } from '../runs/caller/template-compile.js';
export { checkUrl } from './url-rules.js';
import type { AuthType, BackoffStrategy, EndpointSecrets } from '../../schemas/endpoint-connections.js';
import type { EndpointConnection } from '../../schemas/endpoint-connections.js';

/** Pure rules of an endpoint connection. */

export const TIMEOUT_DEFAULT = 15;
export const TIMEOUT_MAX = 120;
export const RETRY_MAX_DELAY_CAP = 60_000;
export const RETRY_DEFAULTS = {
  enabledAttempts: 3,
  initialDelayMs: 1000,
  backoff: 'EXPONENTIAL' as BackoffStrategy,
  maxDelayMs: 30_000,
  statusCodes: [429, 500, 502, 503, 504],
};

const PLACEHOLDER = /\{\{-?\s*input\.user_message\s*(\|[^}]*)?-?\}\}/;

export function checkInputTemplate(template: string): void {
  try {
    // The compile a request's rendering runs: a syntax error anywhere is reported here.
    compileTemplate(template, 'json');
  } catch (error) {
    throw new ValidationError(`inputTemplate is not a valid Nunjucks template: ${(error as Error).message}`);
  }
  if (!PLACEHOLDER.test(template)) {
    throw new ValidationError('inputTemplate must contain the placeholder {{ input.user_message }}');
  }
}

/** RFC 9110 §5.6.2: a header name is a token. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Set by the HTTP client from the URL and the body; a stored value would corrupt the request. */
const RESERVED_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection']);
const UNSAFE_VALUE = /[\r\n\0]/;
const MAX_HEADER_NAME = 256;

/** Header names are RFC 9110 tokens other than the connection-level ones; values have no CR, LF or NUL. */
export function checkHeaders(headers: Record<string, string>): void {
  for (const [name, value] of Object.entries(headers)) {
    if (!TOKEN.test(name)) {
      throw new ValidationError(
        `headers: ${JSON.stringify(name)} is not a valid header name (an RFC 9110 token: letters, digits and !#$%&'*+-.^_\`|~)`,
      );
    }
    if (name.length > MAX_HEADER_NAME)
      throw new ValidationError(`headers: a header name must have at most ${MAX_HEADER_NAME} characters`);
    if (RESERVED_HEADERS.has(name.toLowerCase()))
      throw new ValidationError(`headers.${name} is not allowed (it is set by the HTTP client)`);
    if (UNSAFE_VALUE.test(value))
      throw new ValidationError(`headers.${name} must not contain CR, LF or NUL characters`);
  }
}

const MAX_OUTPUT_NAME = 200;

export function checkOutputMapping(mapping: Record<string, string>): void {
  if (!Object.hasOwn(mapping, 'output')) {
    throw new ValidationError("outputMapping must contain the key 'output'");
  }
  for (const [name, expression] of Object.entries(mapping)) {
    if (name.length > MAX_OUTPUT_NAME)
      throw new ValidationError(`outputMapping: a key must have at most ${MAX_OUTPUT_NAME} characters`);
    if (!isJsonPath(expression)) {
      throw new ValidationError(`outputMapping.${name} is not a valid JSONPath expression: ${expression}`);
    }
  }
}

export function isJsonPath(expression: string): boolean {
  if (!expression.startsWith('$')) return false;
  try {
    JSONPath.toPathArray(expression);
    JSONPath({ path: expression, json: { a: [{ b: 1 }] }, wrap: false, eval: false });
    return true;
  } catch {
    return false;
  }
}

export function checkInputSchema(schema: Record<string, unknown> | null | undefined): void {
  if (schema === null || schema === undefined) return;
  if (schema.type !== 'object') throw new ValidationError("inputSchema must have type 'object'");
  if (typeof schema.properties !== 'object' || schema.properties === null || Array.isArray(schema.properties)) {
    throw new ValidationError("inputSchema must have a 'properties' object");
  }
  compileUserSchema(schema, 'inputSchema');
}

/** The contract caps, not rejects, values above these limits. */
export function capTimeout(timeout: number | null | undefined): number {
  return timeout === null || timeout === undefined ? TIMEOUT_DEFAULT : Math.min(timeout, TIMEOUT_MAX);
}
export function capRetryMaxDelay(ms: number): number {
  return Math.min(ms, RETRY_MAX_DELAY_CAP);
}

export function checkRetry(c: Pick<EndpointConnection, 'retryEnabled' | 'retryMaxAttempts'>): void {
  if (c.retryEnabled && c.retryMaxAttempts < 1) {
    throw new ValidationError('retryMaxAttempts must be at least 1 when retryEnabled is true');
  }
}

/** Which credentials each authType takes. */
export function checkAuth(authType: AuthType, username: string | null, secrets: EndpointSecrets): void {
  const hasToken = Boolean(secrets.authToken);
  const hasPassword = Boolean(secrets.password);
  switch (authType) {
    case 'NONE':
      if (hasToken) throw new ValidationError('authToken must not be set when authType is NONE');
      if (username) throw new ValidationError('username must not be set when authType is NONE');
      if (hasPassword) throw new ValidationError('password must not be set when authType is NONE');
      return;
    case 'BEARER':
    case 'API_KEY':
      if (!hasToken) throw new ValidationError(`authToken is required when authType is ${authType}`);
      if (username) throw new ValidationError(`username must not be set when authType is ${authType}`);
      if (hasPassword) throw new ValidationError(`password must not be set when authType is ${authType}`);
      return;
    case 'BASIC':
      if (!username) throw new ValidationError('username is required when authType is BASIC');
      if (!hasPassword) throw new ValidationError('password is required when authType is BASIC');
      if (hasToken) throw new ValidationError('authToken must not be set when authType is BASIC');
      return;
  }
}
