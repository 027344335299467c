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
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
  /** A fault of the request (its sender can fix it) rather than of the service. */
  get isClientFault(): boolean {
    return this.kind !== 'unavailable';
  }
}

export class ValidationError extends DomainError {
  readonly kind = 'invalid';
}
export class UnauthorizedError extends DomainError {
  readonly kind = 'unauthorized';
  constructor(message = 'missing or invalid API key') {
    super(message);
  }
}
export class ForbiddenError extends DomainError {
  readonly kind = 'forbidden';
}
export class NotFoundError extends DomainError {
  readonly kind = 'notFound';
}
export class ConflictError extends DomainError {
  readonly kind = 'conflict';
}
export class PayloadTooLargeError extends DomainError {
  readonly kind = 'tooLarge';
}
export class UnsupportedMediaTypeError extends DomainError {
  readonly kind = 'unsupportedMediaType';
}
export class TooManyRequestsError extends DomainError {
  readonly kind = 'tooManyRequests';
}
export class ServiceUnavailableError extends DomainError {
  readonly kind = 'unavailable';
}
