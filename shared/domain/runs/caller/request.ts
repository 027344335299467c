import { USER_AGENT } from '../../../outbound/user-agent.js';
import { renderTemplate, TemplateRenderError } from './template.js';
import type { AgentConnection } from './types.js';

/** Building one agent request from a connection and the turn's variables. */

export { SERVICE_NAME, USER_AGENT } from '../../../outbound/user-agent.js';

export interface AgentRequest {
  method: AgentConnection['httpMethod'];
  url: URL;
  headers: Record<string, string>;
  body: string | null;
  /** Name of the header that carries the credential we added, if any (shown as `<scheme> ***`). */
  authHeader?: string;
}

export class RequestBuildError extends Error {}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);
const FORBIDDEN_CHARS = /[\r\n\0]/;

function hasHeader(headers: Record<string, string>, name: string): boolean {
  const lower = name.toLowerCase();
  return Object.keys(headers).some((k) => k.toLowerCase() === lower);
}

function render(
  template: string,
  variables: Record<string, unknown>,
  context: 'json' | 'url' | 'raw',
  what: string,
): string {
  try {
    return renderTemplate(template, variables, context);
  } catch (error) {
    if (error instanceof TemplateRenderError)
      throw new RequestBuildError(`the ${what} could not be rendered: ${error.message}`);
    throw error;
  }
}

/**
 * Renders the URL, headers and body. Throws RequestBuildError (the turn fails before any call)
 * when a template does not render, the URL is not http(s), a header value gains a line break, or
 * the rendered body is not JSON.
 */
export function buildRequest(connection: AgentConnection, variables: Record<string, unknown>): AgentRequest {
  const urlText = render(connection.url, variables, 'url', 'url');
  let url: URL;
  try {
    url = new URL(urlText);
  } catch {
    throw new RequestBuildError('the rendered url is not an absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new RequestBuildError('the rendered url must use http or https');
  if (url.username || url.password) throw new RequestBuildError('the rendered url must not carry credentials');

  const headers: Record<string, string> = {};
  for (const [name, template] of Object.entries(connection.headers ?? {})) {
    const value = render(template, variables, 'raw', `header ${name}`);
    if (FORBIDDEN_CHARS.test(value))
      throw new RequestBuildError(`header ${name} contains a line break or NUL after rendering`);
    headers[name] = value;
  }

  const rendered = render(connection.inputTemplate, variables, 'json', 'inputTemplate');
  let parsed: unknown;
  try {
    parsed = JSON.parse(rendered);
  } catch (error) {
    throw new RequestBuildError(
      `the rendered inputTemplate is not valid JSON: ${(error as Error).message.slice(0, 200)}`,
    );
  }

  let body: string | null = null;
  if (BODY_METHODS.has(connection.httpMethod)) {
    body = rendered;
    if (!hasHeader(headers, 'content-type')) headers['Content-Type'] = 'application/json';
  } else {
    // GET and DELETE: the rendered object becomes query parameters.
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new RequestBuildError(
        `the rendered inputTemplate must be a JSON object for ${connection.httpMethod} (its fields become query parameters)`,
      );
    }
    for (const [key, value] of Object.entries(parsed)) {
      for (const v of Array.isArray(value) ? value : [value]) url.searchParams.append(key, queryValue(v));
    }
  }

  if (!hasHeader(headers, 'user-agent')) headers['User-Agent'] = USER_AGENT;
  const turnId = variables.inference_result_id;
  if (typeof turnId === 'string' && turnId !== '' && !hasHeader(headers, 'x-inference-result-id'))
    headers['X-Inference-Result-Id'] = turnId;

  const auth = authHeader(connection);
  let authName: string | undefined;
  if (auth && !hasHeader(headers, auth.name)) {
    headers[auth.name] = auth.value;
    authName = auth.name;
  }
  return { method: connection.httpMethod, url, headers, body, ...(authName ? { authHeader: authName } : {}) };
}

function queryValue(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function authHeader(c: AgentConnection): { name: string; value: string } | undefined {
  switch (c.authType) {
    case 'BEARER':
      return c.authToken ? { name: 'Authorization', value: `Bearer ${c.authToken}` } : undefined;
    case 'API_KEY':
      return c.authToken ? { name: 'X-API-Key', value: c.authToken } : undefined;
    case 'BASIC':
      return c.username !== undefined && c.password !== undefined
        ? { name: 'Authorization', value: `Basic ${basicCredentials(c.username, c.password)}` }
        : undefined;
    default:
      return undefined;
  }
}

export function basicCredentials(username: string, password: string): string {
  return Buffer.from(`${username}:${password}`, 'utf8').toString('base64');
}

/** The secret values of a connection, in every form they are sent. */
export function secretsOf(c: AgentConnection): string[] {
  const out: string[] = [];
  if (c.authToken) out.push(c.authToken);
  if (c.password) out.push(c.password);
  if (c.username !== undefined && c.password) out.push(basicCredentials(c.username, c.password));
  return out;
}
