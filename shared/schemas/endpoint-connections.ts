import * as Type from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import {
  DateTime,
  FreeForm,
  Id,
  IdList,
  ListQueryBase,
  Name,
  Nullable,
  omitProps,
  optionalProps,
  pickProps,
  StringEnum,
} from './common.js';
import { FREE_FORM_MAX_BYTES } from './storable.js';
import { FreeObject, Int, S, deletedAt, record } from './answers.js';

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export const AUTH_TYPES = ['NONE', 'BEARER', 'API_KEY', 'BASIC'] as const;
export const CONNECTION_TYPES = ['INITIALIZATION', 'CONVERSATION', 'FINALIZATION'] as const;
export const BACKOFF_STRATEGIES = ['FIXED', 'EXPONENTIAL', 'LINEAR'] as const;

export type HttpMethodName = (typeof HTTP_METHODS)[number];
export type AuthType = (typeof AUTH_TYPES)[number];
export type ConnectionType = (typeof CONNECTION_TYPES)[number];
export type BackoffStrategy = (typeof BACKOFF_STRATEGIES)[number];

const Secret = Type.String({ minLength: 1, maxLength: 4096 });
/** Maps of strings keyed by the client: the free-form key and size rules, one level deep. */
const stringMap = { freeForm: { maxDepth: 1, maxBytes: FREE_FORM_MAX_BYTES } };

const editable = {
  name: Name,
  url: Type.String({ minLength: 1, maxLength: 2048 }),
  httpMethod: StringEnum(HTTP_METHODS),
  authType: StringEnum(AUTH_TYPES),
  authToken: Nullable(Secret),
  username: Nullable(Type.String({ minLength: 1, maxLength: 512 })),
  password: Nullable(Secret),
  // Names (RFC 9110 tokens, no Host/Content-Length/Transfer-Encoding/Connection) and values (no
  // CR, LF or NUL) are checked by checkHeaders in endpoint-connection-rules.ts, naming the header.
  headers: Type.Record(Type.String(), Type.String({ maxLength: 8192 }), {
    maxProperties: 50,
    ...stringMap,
    propertyNames: { type: 'string', maxLength: 256 },
    maxBytes: 32 * 1024,
  }),
  // Byte budgets keep the worst-case item under 350 KB.
  inputTemplate: Type.String({ minLength: 1, maxLength: 100_000, maxBytes: 100 * 1024 }),
  outputMapping: Type.Record(Type.String(), Type.String({ minLength: 1, maxLength: 1000 }), {
    maxProperties: 50,
    ...stringMap,
    propertyNames: { type: 'string', maxLength: 200 },
    maxBytes: 32 * 1024,
  }),
  inputSchema: Nullable(FreeForm()),
  type: StringEnum(CONNECTION_TYPES),
  // Larger values are capped server-side (contract), so only the lower bounds are schema rules.
  timeout: Type.Integer({ minimum: 1 }),
  rateLimit: Nullable(Type.Integer({ minimum: 1 })),
  retryEnabled: Type.Boolean(),
  retryMaxAttempts: Type.Integer({ minimum: 0, maximum: 10 }),
  retryInitialDelayMs: Type.Integer({ minimum: 0 }),
  retryBackoffStrategy: StringEnum(BACKOFF_STRATEGIES),
  retryMaxDelayMs: Type.Integer({ minimum: 0 }),
  retryableStatusCodes: Type.Array(Type.Integer({ minimum: 100, maximum: 599 }), { maxItems: 100, uniqueItems: true }),
};

const editableProps = { ...editable, timeout: Nullable(editable.timeout) };
const REQUIRED = ['name', 'url', 'inputTemplate', 'outputMapping', 'type'] as const;

export const EndpointConnectionCreate = Type.Object(
  {
    productId: Id,
    ...pickProps(editableProps, REQUIRED),
    ...optionalProps(omitProps(editableProps, REQUIRED)),
  },
  { additionalProperties: false },
);
export type EndpointConnectionCreate = Static<typeof EndpointConnectionCreate>;

export const EndpointConnectionUpdate = Type.Object(
  {
    ...optionalProps(editableProps),
    /** Immutable: accepted by the schema only so the domain can answer "cannot be changed". */
    productId: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type EndpointConnectionUpdate = Static<typeof EndpointConnectionUpdate>;

export const EndpointConnectionListQuery = Type.Object(
  {
    ...ListQueryBase,
    productIds: Type.Optional(IdList),
    url: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
    types: Type.Optional(Type.Array(StringEnum(CONNECTION_TYPES), { maxItems: 3 })),
    httpMethods: Type.Optional(Type.Array(StringEnum(HTTP_METHODS), { maxItems: 5 })),
    authTypes: Type.Optional(Type.Array(StringEnum(AUTH_TYPES), { maxItems: 4 })),
  },
  { additionalProperties: false },
);
export type EndpointConnectionListQuery = Static<typeof EndpointConnectionListQuery>;

export interface EndpointSecrets {
  authToken?: string;
  password?: string;
}

export const EndpointConnectionRecord = record(
  'EndpointConnection',
  {
    id: S,
    organizationId: S,
    productId: S,
    userId: S,
    name: S,
    url: S,
    httpMethod: StringEnum(HTTP_METHODS),
    authType: StringEnum(AUTH_TYPES),
    hasAuthToken: Type.Boolean({ description: 'whether a token is configured; the token is never returned' }),
    username: Nullable(S),
    hasPassword: Type.Boolean({ description: 'whether a password is configured; the password is never returned' }),
    headers: Type.Record(Type.String(), Type.String()),
    inputTemplate: S,
    outputMapping: Type.Record(Type.String(), Type.String(), { description: 'name → JSONPath; has the key `output`' }),
    inputSchema: Nullable(FreeObject),
    type: StringEnum(CONNECTION_TYPES),
    timeout: Type.Integer({ minimum: 1, maximum: 120 }),
    rateLimit: Nullable(Type.Integer({ minimum: 1 })),
    retryEnabled: Type.Boolean(),
    retryMaxAttempts: Type.Integer({ minimum: 0, maximum: 10 }),
    retryInitialDelayMs: Int,
    retryBackoffStrategy: StringEnum(BACKOFF_STRATEGIES),
    retryMaxDelayMs: Type.Integer({ minimum: 0, maximum: 60000 }),
    retryableStatusCodes: Type.Array(Type.Integer({ minimum: 100, maximum: 599 })),
    createdAt: DateTime,
    deletedAt,
  },
  'How the service calls a customer agent over HTTP. Secrets are write-only.',
);

/** The readable record: secrets never appear, only `hasAuthToken` and `hasPassword`. */
export type EndpointConnection = Static<typeof EndpointConnectionRecord>;
