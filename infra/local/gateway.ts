import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { dirname, resolve } from 'node:path';
import { createRequire } from 'node:module';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, APIGatewayAuthorizerResult, Context } from 'aws-lambda';
import { BINARY_MEDIA_TYPES, routes, jobs, type Route } from '../../shared/routes.js';
import { GATEWAY_BODIES } from '../../shared/http/errors.js';
import { apiDocsAnswer, type ApiDocsFiles } from '../../shared/http/api-docs.js';
import { invoke } from './invocations.js';
import { reportUsage, usageObserved } from './usage.js';
// Jobs a handler enqueues land in the in-process queues (queue URLs are local:// here).
import './queues.js';

/**
 * An in-process stand-in for API Gateway's REST API: route matching from the route table, the
 * real TOKEN authorizer on every request (no cache), REST proxy events, and the gateway's own
 * answers with the same bodies CDK templates. The local server and the tests both use it.
 */
export const PROJECT_ROOT = resolve(import.meta.dirname, '..', '..');

export interface GatewayRequest {
  method: string;
  /** Path without the query string. */
  path: string;
  query?: Record<string, string[]>;
  headers?: Record<string, string>;
  /** The body as sent: bytes, or text (sent as its UTF-8). */
  body?: string | Buffer;
  sourceIp?: string;
}

export interface GatewayResponse {
  statusCode: number;
  headers: Record<string, string>;
  /** The answer as text (UTF-8 of `bytes` for a binary answer). */
  body: string;
  /** The answer's bytes, when the function answered binary (isBase64Encoded). */
  bytes?: Buffer;
}

/** Whether API Gateway passes a body of this Content-Type as bytes (base64 in the event): BINARY_MEDIA_TYPES. */
export function isBinaryMediaType(contentType: string | undefined): boolean {
  const media = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  return BINARY_MEDIA_TYPES.some((pattern) => {
    const [type, sub] = pattern.split('/');
    const [mType, mSub] = media.split('/');
    return (type === '*' || type === mType) && (sub === '*' || sub === mSub);
  });
}

/** The API reference's files in a checkout: the committed document and swagger-ui-dist's folder. */
export const LOCAL_DOCS_FILES: ApiDocsFiles = {
  document: resolve(PROJECT_ROOT, 'docs', 'openapi.json'),
  assets: dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json')),
};

type LambdaHandler = (event: unknown, context: Context) => Promise<unknown>;
const modules = new Map<string, Promise<LambdaHandler>>();

/** Loads `functions/<name>.ts` once and returns its `handler`. */
export function loadHandler(name: string): Promise<LambdaHandler> {
  let loaded = modules.get(name);
  if (!loaded) {
    const url = pathToFileURL(resolve(PROJECT_ROOT, 'functions', `${name}.ts`)).href;
    loaded = import(url).then((m: { handler?: LambdaHandler }) => {
      if (typeof m.handler !== 'function') throw new Error(`functions/${name}.ts exports no handler`);
      return m.handler;
    });
    modules.set(name, loaded);
  }
  return loaded;
}

export function lambdaContext(functionName: string, timeoutMs = 30_000): Context {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

interface Compiled {
  route: Route;
  regex: RegExp;
  names: string[];
  literalSegments: number;
}

const compiled: Compiled[] = routes.map((route) => {
  const names: string[] = [];
  const pattern = route.path
    .split('/')
    .map((seg) => {
      const m = /^\{(\w+)\}$/.exec(seg);
      if (m) {
        names.push(m[1]!);
        return '([^/]+)';
      }
      return seg.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
    })
    .join('/');
  return {
    route,
    regex: new RegExp(`^${pattern}/?$`),
    names,
    literalSegments: route.path.split('/').filter((s) => s && !s.startsWith('{')).length,
  };
});
// A literal segment beats a parameter (as API Gateway matches `/phoneConnections/batch` before `{id}`).
compiled.sort((a, b) => b.literalSegments - a.literalSegments);

/** The route and decoded path parameters; `path` must be decodable (`dispatch` checks it first). */
export function matchRoute(method: string, path: string): { route: Route; params: Record<string, string> } | undefined {
  for (const c of compiled) {
    if (c.route.method !== method) continue;
    const m = c.regex.exec(path);
    if (!m) continue;
    const params: Record<string, string> = {};
    c.names.forEach((n, i) => {
      params[n] = decodeURIComponent(m[i + 1]!);
    });
    return { route: c.route, params };
  }
  return undefined;
}

const MALFORMED_PATH = {
  error: 'Bad Request',
  message: 'path has a malformed percent-encoding (each %XX must form UTF-8)',
};

function isDecodablePath(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

function gatewayAnswer(statusCode: number, body: object): GatewayResponse {
  return { statusCode, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) };
}

const API_ARN = 'arn:aws:execute-api:local:000000000000:local';

function policyAllows(result: APIGatewayAuthorizerResult, methodArn: string): boolean {
  const statements = result.policyDocument?.Statement ?? [];
  return statements.some((s) => {
    const st = s as { Effect: string; Resource?: string | string[] };
    const resources = Array.isArray(st.Resource) ? st.Resource : [st.Resource ?? ''];
    return (
      st.Effect === 'Allow' &&
      resources.some((r) =>
        new RegExp(`^${r.replace(/[.+?^$()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`).test(methodArn),
      )
    );
  });
}

/** The proxy event's body: base64 with isBase64Encoded for a binary media type (as API Gateway does), else text. */
function eventBody(
  body: string | Buffer | undefined,
  contentType: string | undefined,
): Pick<APIGatewayProxyEvent, 'body' | 'isBase64Encoded'> {
  if (body === undefined || body.length === 0) return { body: null, isBase64Encoded: false };
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  if (isBinaryMediaType(contentType)) return { body: bytes.toString('base64'), isBase64Encoded: true };
  return { body: bytes.toString('utf8'), isBase64Encoded: false };
}

/** Handles one request the way the deployed API Gateway + Lambda would. */
export async function dispatch(req: GatewayRequest): Promise<GatewayResponse> {
  const method = req.method.toUpperCase();
  // Path parameters are decoded below; a path that cannot be is refused before any route or key.
  if (!isDecodablePath(req.path)) return gatewayAnswer(400, MALFORMED_PATH);
  // The API reference: its own methods without the authorizer, as in CDK.
  const docs = apiDocsAnswer(method, req.path, LOCAL_DOCS_FILES);
  if (docs) return docs;
  const match = matchRoute(method, req.path);
  if (!match) return gatewayAnswer(404, GATEWAY_BODIES.notFound);
  const headers = Object.fromEntries(Object.entries(req.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));

  // The TOKEN authorizer: identity source is the Authorization header.
  const token = headers.authorization;
  if (!token) return gatewayAnswer(401, GATEWAY_BODIES.unauthorized);
  const methodArn = `${API_ARN}/local/${method}${req.path}`;
  let authorizer: APIGatewayAuthorizerResult;
  try {
    const authorize = await loadHandler('authorizer');
    const context = lambdaContext('authorizer');
    const tokenEvent = { type: 'TOKEN', authorizationToken: token, methodArn };
    authorizer = (await invoke(context, 'authorizer', () =>
      authorize(tokenEvent, context),
    )) as APIGatewayAuthorizerResult;
  } catch (error) {
    if ((error as Error).message === 'Unauthorized') return gatewayAnswer(401, GATEWAY_BODIES.unauthorized);
    console.error('authorizer failed', error);
    return gatewayAnswer(500, GATEWAY_BODIES.default5xx);
  }
  if (!policyAllows(authorizer, methodArn)) return gatewayAnswer(403, GATEWAY_BODIES.accessDenied);
  // API Gateway bills the requests its authorizer lets through.
  if (usageObserved()) reportUsage({ kind: 'api', method, path: req.path });

  const query = req.query ?? {};
  const hasQuery = Object.keys(query).length > 0;
  const event: APIGatewayProxyEvent = {
    resource: match.route.path,
    path: req.path,
    httpMethod: method,
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
    queryStringParameters: hasQuery
      ? Object.fromEntries(Object.entries(query).map(([k, v]) => [k, v[v.length - 1]!]))
      : null,
    multiValueQueryStringParameters: hasQuery ? query : null,
    pathParameters: Object.keys(match.params).length ? match.params : null,
    stageVariables: null,
    ...eventBody(req.body, headers['content-type']),
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      authorizer: { ...(authorizer.context ?? {}), principalId: authorizer.principalId },
      httpMethod: method,
      identity: {
        sourceIp: req.sourceIp ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? null,
      } as APIGatewayProxyEvent['requestContext']['identity'],
      path: `/local${req.path}`,
      protocol: 'HTTP/1.1',
      requestId: randomUUID(),
      requestTimeEpoch: Date.now(),
      resourceId: 'local',
      resourcePath: match.route.path,
      stage: 'local',
    },
  };
  try {
    const handler = await loadHandler(match.route.handler);
    const context = lambdaContext(match.route.handler);
    const result = (await invoke(context, match.route.handler, () => handler(event, context))) as APIGatewayProxyResult;
    const outHeaders: Record<string, string> = {};
    for (const [k, v] of Object.entries(result.headers ?? {})) outHeaders[k] = String(v);
    if (result.isBase64Encoded) {
      const bytes = Buffer.from(result.body ?? '', 'base64');
      return { statusCode: result.statusCode, headers: outHeaders, body: bytes.toString('utf8'), bytes };
    }
    return { statusCode: result.statusCode, headers: outHeaders, body: result.body ?? '' };
  } catch (error) {
    console.error(`function ${match.route.handler} failed`, error);
    return gatewayAnswer(500, GATEWAY_BODIES.default5xx);
  }
}

/** The job a function name stands for: its job name or its local function name (`local-<job>`). */
export function findJob(name: string): (typeof jobs)[number] | undefined {
  return jobs.find((j) => j.name === name || localFunctionName(j.name) === name);
}

/** Runs a job function by its name (the local stand-in for Lambda Invoke). */
export async function invokeJob(name: string, payload: unknown): Promise<unknown> {
  const job = findJob(name);
  if (!job) throw new Error(`no job named ${name}`);
  const handler = await loadHandler(job.handler);
  const context = lambdaContext(localFunctionName(job.name));
  return invoke(context, job.handler, () => handler(payload, context));
}

export function localFunctionName(job: string): string {
  return `local-${job}`;
}
