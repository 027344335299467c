import * as Type from '@sinclair/typebox';
import type { Static, TObject, TSchema } from '@sinclair/typebox';

/**
 * A route's contract, written once: method, path, handler module, access, table grants, and the
 * schemas of its request (path, query, body) and of its success answer. The handler takes its
 * types from these schemas (shared/http/handler.ts); ajv validates with them; the OpenAPI document
 * and the console's types are generated from them (infra/openapi.ts).
 */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
/** `member` = any valid key; `admin` = ADMIN role; `adminOrEnterprise` = ADMIN role or an ENTERPRISE organization. */
export type Access = 'member' | 'admin' | 'adminOrEnterprise';
/** The table access the route's function is granted (`read` routes get read-only grants). */
export type DataAccess = 'read' | 'write';
/** Extra permissions a route's function needs beyond the table (`tableSelect`: PartiQL reads). */
export type Capability =
  | 'bucketRead'
  | 'bucketWrite'
  | 'invokeJobs'
  | 'queueSend'
  | 'runQueueSend'
  | 'webhookQueueSend'
  | 'generationQueueSend'
  | 'voiceQueueSend'
  | 'tableSelect';

/** The schemas of a route: what it takes and what it answers. */
export interface RouteSchemas {
  /** Path parameters (none when absent). */
  params?: TObject;
  /** Query parameters (none allowed when absent). */
  query?: TObject;
  /** The JSON body (no body allowed when absent). */
  body?: TSchema;
  /** The body may be left out (then it is validated as `{}`). */
  bodyOptional?: boolean;
  /** Instead of `body`: the handler receives the body's bytes (`RawBody`) undecoded. */
  rawBody?: {
    /** The media types the route takes and answers. */
    mediaTypes: readonly string[];
    /** The JSON form of the body (documentation: the route decodes the body itself). */
    schema?: TSchema;
  };
  /** The success body. */
  response: TSchema;
  /** The media types of the success answer when it is not JSON (the handler answers with `bytes`). */
  responseMediaTypes?: readonly string[];
}

export interface RouteOptions {
  access?: Access;
  capabilities?: readonly Capability[];
}

/** Where a route is and who may call it: what the stack and the local gateway route by. */
export interface Route {
  method: HttpMethod;
  path: string;
  /** The module under `functions/` (without extension) exporting `handler`. */
  handler: string;
  access: Access;
  data: DataAccess;
  capabilities?: readonly Capability[];
}

/**
 * A route of the table with its schemas. `route()` requires the response schema; it is optional
 * here only so that a plain `Route` compares with a table entry.
 */
export type RouteContract = Route & Partial<RouteSchemas>;

/** What a handler is built from: its route's entry (tests build handlers of a few schemas alone). */
export type HandlerSpec = { handler: string } & Partial<RouteSchemas>;

/** A route of the table (`access` is `member` unless given). */
export function route<const H extends string, const S extends RouteSchemas & RouteOptions>(
  method: HttpMethod,
  path: string,
  handler: H,
  data: DataAccess,
  schemas: S,
): Omit<S, 'access'> & { method: HttpMethod; path: string; handler: H; data: DataAccess; access: Access } {
  return { method, path, handler, data, ...schemas, access: schemas.access ?? 'member' };
}

/** The schemas of a route that declares none (also read by infra/validators.ts). */
export const NoParams = Type.Object({}, { additionalProperties: true });
export const NoQuery = Type.Object({}, { additionalProperties: false });

/** The request body a route that takes its bytes undecoded receives (OTLP: protobuf or JSON, maybe gzip). */
export interface RawBody {
  bytes: Buffer;
  contentType?: string;
  contentEncoding?: string;
  /** Every request header, names in lower case (a protocol spoken over the body reads its own, e.g. MCP's). */
  headers: Record<string, string | undefined>;
}

/** The values a handler receives and answers, derived from its route's schemas. */
export type ParamsOf<R extends HandlerSpec> = R extends { params: infer P extends TSchema } ? Static<P> : object;
export type QueryOf<R extends HandlerSpec> = R extends { query: infer Q extends TSchema } ? Static<Q> : object;
export type BodyOf<R extends HandlerSpec> = R extends { body: infer B extends TSchema }
  ? Static<B>
  : R extends { rawBody: object }
    ? RawBody
    : undefined;
export type ResponseOf<R extends HandlerSpec> = R extends { response: infer S extends TSchema } ? Static<S> : unknown;

/** What the OpenAPI generator, the validators' precompiler and the fuzzer read of a route. */
export interface Contract {
  params?: TObject;
  query: TObject;
  body?: TSchema;
  bodyOptional?: boolean;
  response?: TSchema;
  /** Media types of the body and the success answer; JSON when absent. */
  mediaTypes?: string[];
  /** Media types of the success answer alone, when they differ from the body's (a JSON route answering XML). */
  responseMediaTypes?: string[];
}

export function contractOf(route: Partial<RouteSchemas>): Contract {
  return {
    params: route.params,
    query: route.query ?? NoQuery,
    body: route.body ?? route.rawBody?.schema,
    bodyOptional: route.bodyOptional,
    response: route.response,
    mediaTypes: route.rawBody ? [...route.rawBody.mediaTypes] : undefined,
    responseMediaTypes: route.responseMediaTypes ? [...route.responseMediaTypes] : undefined,
  };
}
