/** Typed errors thrown by domain and data code; `toErrorResponse` maps them once. */

export const REASON_PHRASES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export class HttpError extends Error {
  readonly statusCode: number;
  constructor(statusCode: number, message: string) {
    super(message);
    this.statusCode = statusCode;
    this.name = new.target.name;
  }
  get reason(): string {
    return REASON_PHRASES[this.statusCode] ?? 'Error';
  }
}

export class ValidationError extends HttpError {
  constructor(message: string) {
    super(400, message);
  }
}
export class UnauthorizedError extends HttpError {
  constructor(message = 'missing or invalid API key') {
    super(401, message);
  }
}
export class ForbiddenError extends HttpError {
  constructor(message: string) {
    super(403, message);
  }
}
export class NotFoundError extends HttpError {
  constructor(message: string) {
    super(404, message);
  }
}
export class ConflictError extends HttpError {
  constructor(message: string) {
    super(409, message);
  }
}
export class PayloadTooLargeError extends HttpError {
  constructor(message: string) {
    super(413, message);
  }
}
export class UnsupportedMediaTypeError extends HttpError {
  constructor(message: string) {
    super(415, message);
  }
}
export class TooManyRequestsError extends HttpError {
  constructor(message: string) {
    super(429, message);
  }
}
export class ServiceUnavailableError extends HttpError {
  constructor(message: string) {
    super(503, message);
  }
}

export interface ErrorBody {
  error: string;
  message: string;
}

const INTERNAL_MESSAGE = 'an unexpected error occurred; it has been logged';

/**
 * The one mapping from a thrown value to `{statusCode, body}`. Only an `HttpError` below 500
 * exposes its message; anything else is a 500 with a fixed message and no internals.
 */
export function toErrorResponse(error: unknown): { statusCode: number; body: ErrorBody } {
  if (error instanceof HttpError && error.statusCode < 500) {
    return { statusCode: error.statusCode, body: { error: error.reason, message: error.message } };
  }
  if (error instanceof HttpError) {
    return { statusCode: error.statusCode, body: { error: error.reason, message: fixedMessage(error.statusCode) } };
  }
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
