import { describe, expect, it } from 'vitest';
import {
  ConflictError,
  ForbiddenError,
  NotFoundError,
  ServiceUnavailableError,
  UnsupportedMediaTypeError,
  ValidationError,
} from '../../shared/errors.js';
import { toErrorResponse } from '../../shared/http/errors.js';

describe('error mapper', () => {
  it.each([
    [new ValidationError('name is required'), 400, 'Bad Request'],
    [new ForbiddenError('nope'), 403, 'Forbidden'],
    [new NotFoundError('gone'), 404, 'Not Found'],
    [new ConflictError('dup'), 409, 'Conflict'],
    [new UnsupportedMediaTypeError('json only'), 415, 'Unsupported Media Type'],
  ])('maps %s to its status and reason phrase', (error, status, reason) => {
    const out = toErrorResponse(error);
    expect(out.statusCode).toBe(status);
    expect(out.body).toEqual({ error: reason, message: error.message });
  });

  it('never exposes the message of an unexpected error', () => {
    const out = toErrorResponse(new Error('ResourceNotFoundException: table secret-table at 10.0.0.1'));
    expect(out.statusCode).toBe(500);
    expect(out.body.error).toBe('Internal Server Error');
    expect(out.body.message).not.toMatch(/secret|10\.0|Exception/);
  });

  it('gives 5xx domain errors a fixed message', () => {
    const out = toErrorResponse(new ServiceUnavailableError('dynamo throttled at partition X'));
    expect(out).toEqual({
      statusCode: 503,
      body: { error: 'Service Unavailable', message: expect.not.stringContaining('partition') },
    });
  });
});
