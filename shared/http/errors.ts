import { DomainError, type ErrorKind } from '../errors.js';

/** The HTTP side of the domain errors (shared/errors.ts): `toErrorResponse` maps them once. */

export const REASON_PHRASES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** The HTTP status of each kind of domain error. */
const STATUS: Record<ErrorKind, number> = {
  invalid: 400,
  unauthorized: 401,
  forbidden: 403,
  notFound: 404,
  conflict: 409,
  tooLarge: 413,
  unsupportedMediaType: 415,
  tooManyRequests: 429,
  unavailable: 503,
};

/** The status a thrown value answers with: its kind's for a domain error, else 500. */
export function statusOf(error: unknown): number {
  return error instanceof DomainError ? STATUS[error.kind] : 500;
}

export interface ErrorBody {
  error: string;
  message: string;
}

const INTERNAL_MESSAGE = 'an unexpected error occurred; it has been logged';

/**
 * The one mapping from a thrown value to `{statusCode, body}`. Only a domain error below 500
 * exposes its message; anything else is a 500 with a fixed message and no internals.
 */
export function toErrorResponse(error: unknown): { statusCode: number; body: ErrorBody } {
  const status = statusOf(error);
  const reason = REASON_PHRASES[status] ?? 'Error';
  if (error instanceof DomainError && status < 500)
    return { statusCode: status, body: { error: reason, message: error.message } };
  if (error instanceof DomainError)
    return { statusCode: status, body: { error: reason, message: fixedMessage(status) } };
  return { statusCode: 500, body: { error: REASON_PHRASES[500]!, message: INTERNAL_MESSAGE } };
}

function fixedMessage(status: number): string {
  return status === 503 ? 'the service is temporarily unavailable; retry later' : INTERNAL_MESSAGE;
}

/** The gateway's own answers (authorizer, unknown route, throttling), shared by CDK and the local server. */
export const GATEWAY_BODIES = {
  unauthorized: { error: 'Unauthorized', message: 'missing or invalid API key' },
  accessDenied: { error: 'Forbidden', message: 'this API key may not call this route' },
  notFound: { error: 'Not Found', message: 'no such route' },
  throttled: { error: 'Too Many Requests', message: 'rate limit exceeded; retry later' },
  default5xx: { error: 'Internal Server Error', message: INTERNAL_MESSAGE },
} as const satisfies Record<string, ErrorBody>;
