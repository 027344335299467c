/**
 * The errors domain and data code throw, named by what went wrong, not by a protocol:
 * shared/http/errors.ts maps each kind to its HTTP status once (the only place that knows them).
 */

export type ErrorKind =
  | 'invalid'
  | 'unauthorized'
  | 'forbidden'
  | 'notFound'
  | 'conflict'
  | 'tooLarge'
  | 'unsupportedMediaType'
  | 'tooManyRequests'
  | 'unavailable';

export abstract class DomainError extends Error {
  abstract readonly kind: ErrorKind;
  /**
   * The class's name, written out in each: a function bundle is minified, so `new.target.name`
   * would put a mangled name in the logs.
   */
  abstract override readonly name: string;
  /** A fault of the request (its sender can fix it) rather than of the service. */
  get isClientFault(): boolean {
    return this.kind !== 'unavailable';
  }
}

export class ValidationError extends DomainError {
  override readonly name = 'ValidationError';
  readonly kind = 'invalid';
}
export class UnauthorizedError extends DomainError {
  override readonly name = 'UnauthorizedError';
  readonly kind = 'unauthorized';
  constructor(message = 'missing or invalid API key') {
    super(message);
  }
}
export class ForbiddenError extends DomainError {
  override readonly name = 'ForbiddenError';
  readonly kind = 'forbidden';
}
export class NotFoundError extends DomainError {
  override readonly name = 'NotFoundError';
  readonly kind = 'notFound';
}
export class ConflictError extends DomainError {
  override readonly name = 'ConflictError';
  readonly kind = 'conflict';
}
export class PayloadTooLargeError extends DomainError {
  override readonly name = 'PayloadTooLargeError';
  readonly kind = 'tooLarge';
}
export class UnsupportedMediaTypeError extends DomainError {
  override readonly name = 'UnsupportedMediaTypeError';
  readonly kind = 'unsupportedMediaType';
}
export class TooManyRequestsError extends DomainError {
  override readonly name = 'TooManyRequestsError';
  readonly kind = 'tooManyRequests';
}
export class ServiceUnavailableError extends DomainError {
  override readonly name = 'ServiceUnavailableError';
  readonly kind = 'unavailable';
}
