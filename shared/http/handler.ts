import middy, { type MiddlewareObj } from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { TSchema } from '@sinclair/typebox';
import { assertAccess, authFromEvent, type AuthContext } from '../auth/context.js';
import { routeValidators } from '#route-validators';
import type { RouteValidators } from './validators.js';
import { UnsupportedMediaTypeError, ValidationError } from '../errors.js';
import { toErrorResponse, type ErrorBody } from './errors.js';
import { logger } from '../observability/logger.js';
import { observability } from '../observability/lambda.js';
import { mapStack } from '../observability/stack-map.js';
import { normaliseQuery } from './query.js';
import { bodyProblem } from '../schemas/storable.js';
import { withNearMiss, withSuggestion } from '../schemas/describe.js';
import {
  contractOf,
  NoParams,
  NoQuery,
  type BodyOf,
  type Contract,
  type ParamsOf,
  type QueryOf,
  type RawBody,
  type ResponseOf,
  type HandlerSpec,
} from '../routes/route.js';

/** An answer; `T` is the success body the route's `response` schema describes. */
export interface Reply<T = unknown> {
  statusCode: number;
  body: T;
  headers?: Record<string, string>;
  /** Bytes answered as they are (base64 in the proxy result), instead of `body` as JSON. */
  raw?: { contentType: string; bytes: Buffer };
}

/** 200 with the value. */
export const ok = <T>(body: T): Reply<T> => ({ statusCode: 200, body });
/** 201 with the created record. */
export const created = <T>(body: T): Reply<T> => ({ statusCode: 201, body });
/** 204 without a body (nothing to answer, e.g. no review item left). */
export const noContent = (): Reply<never> => ({ statusCode: 204, body: undefined as never });
/** 200 with these bytes and this Content-Type (a binary answer, e.g. protobuf). */
export const bytes = (contentType: string, data: Buffer): Reply<never> => ({
  statusCode: 200,
  body: undefined as never,
  raw: { contentType, bytes: data },
});
/** 200 with a JSON array and the total number of matches in `X-Total-Count`. */
export const page = <T>(result: { items: T[]; total: number }): Reply<T[]> => ({
  statusCode: 200,
  body: result.items,
  headers: { 'X-Total-Count': String(result.total) },
});

export interface HttpRequest<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  auth: AuthContext;
  requestId: string;
}

export type { Contract, RawBody };
export { NoParams, NoQuery };

/** What a route's handler adds to its contract: how it answers an error in its own encoding. */
export interface HandlerOptions {
  /** An error answer in the request's own encoding, when JSON is not it (OTLP: a protobuf Status). */
  errorReply?: (
    headers: Record<string, string | undefined>,
    statusCode: number,
    body: ErrorBody,
  ) => { contentType: string; bytes: Buffer } | undefined;
}

type Internal = {
  started: number;
  auth?: AuthContext;
  body?: unknown;
  params?: unknown;
  query?: unknown;
};

/**
 * The one Middy stack of every API function: Powertools' Lambda context keys and, where the
 * function counts metrics, their flush (shared/observability/lambda.ts), request log line, header normalising, auth context and route
 * access, JSON body parsing, schema validation, JSON response, error mapping (last).
 * Validators come from `#route-validators`: compiled by ajv when unbundled
 * (shared/http/route-validators.ts), precompiled at build time in a function bundle
 * (shared/http/precompiled-validators.ts).
 */
export function httpHandler<R extends HandlerSpec>(
  spec: R,
  fn: (req: HttpRequest<ParamsOf<R>, QueryOf<R>, BodyOf<R>>) => Promise<Reply<ResponseOf<R>>>,
  options: HandlerOptions = {},
) {
  const querySchema = spec.query ?? NoQuery;
  // Resolved on the first request: a bundle's entry registers its precompiled validators after
  // this module has loaded (.build/validators/<handler>.ts).
  let validators: RouteValidators | undefined;
  const validatorsOf = () =>
    (validators ??= routeValidators(spec.handler, {
      params: spec.params ?? NoParams,
      query: querySchema,
      body: spec.body,
    }));

  type Req = middy.Request<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context, Internal>;

  // Every line of the request carries its API Gateway request id and route; the organization once
  // the caller is known; the request line its status too. Powertools clears them when it ends.
  const requestLog: MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context, Internal> = {
    before: (request: Req) => {
      request.internal.started = Date.now();
      const { event } = request;
      const route = event.resource ? `${event.httpMethod} ${event.resource}` : spec.handler;
      logger.appendKeys({ apiRequestId: event.requestContext?.requestId, route });
      logger.debug('request received', { path: event.path });
    },
    after: (request: Req) => logLine(request),
    onError: (request: Req) => logLine(request),
  };

  const authorize = {
    before: (request: Req) => {
      const auth = authFromEvent(request.event);
      logger.appendKeys({ organizationId: auth.organizationId });
      assertAccess(auth, validatorsOf().access);
      request.internal.auth = auth;
    },
  };

  const parseAndValidate = {
    before: (request: Req) => {
      const { event } = request;
      const { params, query, body } = validatorsOf();
      request.internal.params = params({ ...(event.pathParameters ?? {}) });
      request.internal.query = suggesting(querySchema, () => query(normaliseQuery(event, querySchema)));
      request.internal.body = spec.rawBody
        ? rawBodyOf(event)
        : suggesting(
            spec.body,
            () => parseBody(event, body, spec.bodyOptional === true),
            () => bodyValueOf(event),
          );
    },
  };

  const errorHandler = {
    onError: (request: Req) => {
      const { statusCode, body } = toErrorResponse(request.error);
      if (statusCode >= 500) {
        // Name, message and stack only: an error's other fields may hold what it was given.
        const { name, message, stack } = request.error ?? {};
        logger.error('request failed', { error: { name, message, stack: mapStack(stack) } });
      }
      const own = options.errorReply?.(request.event.headers ?? {}, statusCode, body);
      request.response = own
        ? binary(statusCode, own, request.context.awsRequestId)
        : json(statusCode, body, request.context.awsRequestId);
    },
  };

  const core = async (
    _event: APIGatewayProxyEvent,
    context: Context,
    internal: Internal,
  ): Promise<APIGatewayProxyResult> => {
    const reply = await fn({
      params: internal.params as ParamsOf<R>,
      query: internal.query as QueryOf<R>,
      body: internal.body as BodyOf<R>,
      auth: internal.auth!,
      requestId: context.awsRequestId,
    });
    if (reply.raw) return binary(reply.statusCode, reply.raw, context.awsRequestId, reply.headers);
    return json(reply.statusCode, reply.body, context.awsRequestId, reply.headers);
  };

  // Validated inputs travel from the middlewares to the handler keyed by the invocation's context
  // (the local server may run one function concurrently).
  const state = new WeakMap<Context, Internal>();
  const captureRequest = {
    before: (request: Req) => {
      state.set(request.context, request.internal);
    },
  };

  const fnWithContract = middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context, Internal>()
    .use(observability())
    .use(requestLog)
    .use(httpHeaderNormalizer() as MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context, Internal>)
    .use(authorize)
    .use(parseAndValidate)
    .use(captureRequest)
    .use(errorHandler)
    .handler((event, context) => core(event, context, state.get(context)!));
  // The route's schemas, as the validators' precompiler and the fuzzer read them.
  return Object.assign(fnWithContract, { contract: contractOf(spec) });

  function logLine(request: Req) {
    logger.appendKeys({ status: request.response?.statusCode });
    const ms = Date.now() - (request.internal.started ?? Date.now());
    logger.info('request', { method: request.event.httpMethod, path: request.event.path, ms });
  }
}

function json(
  statusCode: number,
  body: unknown,
  requestId: string,
  headers: Record<string, string> = {},
): APIGatewayProxyResult {
  if (statusCode === 204) return { statusCode, headers: { 'X-Request-Id': requestId, ...headers }, body: '' };
  return {
    statusCode,
    headers: { 'Content-Type': 'application/json', 'X-Request-Id': requestId, ...headers },
    body: JSON.stringify(body),
  };
}

/** Binary answers go out base64-encoded with isBase64Encoded (API Gateway turns them back into bytes). */
function binary(
  statusCode: number,
  raw: { contentType: string; bytes: Buffer },
  requestId: string,
  headers: Record<string, string> = {},
): APIGatewayProxyResult {
  return {
    statusCode,
    headers: { 'Content-Type': raw.contentType, 'X-Request-Id': requestId, ...headers },
    body: raw.bytes.toString('base64'),
    isBase64Encoded: true,
  };
}

/**
 * Runs a validation; an unknown field's 400 names the nearest field the schema allows, and a
 * missing field's the near miss the request holds instead.
 */
function suggesting<T>(schema: TSchema | undefined, validate: () => T, value?: () => unknown): T {
  try {
    return validate();
  } catch (error) {
    if (!(error instanceof ValidationError) || !schema) throw error;
    const message = withSuggestion(error.message, schema);
    throw new ValidationError(message === error.message && value ? withNearMiss(message, schema, value()) : message);
  }
}

/** The request body as JSON, or undefined (only read again to explain a failed validation). */
function bodyValueOf(event: APIGatewayProxyEvent): unknown {
  try {
    const raw =
      event.body == null ? '' : event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

function rawBodyOf(event: APIGatewayProxyEvent): RawBody {
  const headers = event.headers ?? {};
  return {
    bytes: event.body == null ? Buffer.alloc(0) : Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8'),
    contentType: headers['content-type'] ?? headers['Content-Type'],
    contentEncoding: headers['content-encoding'] ?? headers['Content-Encoding'],
    headers: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value])),
  };
}

const JSON_TYPE = /^application\/([\w.+-]+\+)?json\s*(;.*)?$/i;

/**
 * What JSON.parse found wrong and where, as a line and column of the body ("Expected ':' after
 * property name at line 2, column 6"): the position comes from V8's message, the line and column
 * are counted here (V8's own wording of them has changed between versions).
 */
export function whereJsonFails(raw: string, error: Error): string {
  const lineAndColumn = (at: number) => {
    const before = raw.slice(0, at);
    return `line ${before.split('\n').length}, column ${at - before.lastIndexOf('\n')}`;
  };
  const position = /in JSON at position (\d+)/.exec(error.message);
  if (position) return `${error.message.slice(0, position.index).trim()} at ${lineAndColumn(Number(position[1]))}`;
  if (/^Unexpected end of JSON input/.test(error.message))
    return `it ends before its JSON value does (at ${lineAndColumn(raw.length)})`;
  // V8 names the token and echoes the whole body: the token alone.
  const token = /^Unexpected token (.+?), .* is not valid JSON$/s.exec(error.message);
  if (token) return `unexpected token ${token[1]}`;
  return error.message.slice(0, 200);
}

/** `{}`, with any whitespace around or inside. */
const isEmptyJsonObject = (raw: string): boolean => /^\s*\{\s*\}\s*$/.test(raw);

function parseBody(
  event: APIGatewayProxyEvent,
  validate: ((v: unknown) => unknown) | undefined,
  optional = false,
): unknown {
  const raw =
    event.body == null ? '' : event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  const hasBody = raw.trim().length > 0;
  if (!validate) {
    // Clients that always send a JSON object send `{}`: an empty object is no body.
    if (hasBody && !isEmptyJsonObject(raw))
      throw new ValidationError('this route takes no request body (an empty body or {} only)');
    return undefined;
  }
  if (!hasBody) {
    if (optional) return validate({});
    throw new ValidationError('a JSON request body is required');
  }
  const contentType = event.headers?.['content-type'] ?? event.headers?.['Content-Type'];
  if (!contentType || !JSON_TYPE.test(contentType)) {
    throw new UnsupportedMediaTypeError('the request body must be JSON (Content-Type: application/json)');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    throw new ValidationError(`the request body is not valid JSON: ${whereJsonFails(raw, error as Error)}`);
  }
  // Before the schema: a body too deep to store, a number or a string DynamoDB cannot hold.
  const problem = bodyProblem(parsed);
  if (problem)
    throw new ValidationError(`${problem.at ? problem.at.replace(/^\./, '') : 'the request body'} ${problem.rule}`);
  return validate(parsed);
}
