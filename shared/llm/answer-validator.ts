import type { ErrorObject } from 'ajv';

/**
 * A compiled answer schema: true for a matching value, its `errors` set otherwise (ajv's shape).
 * Below ./answer.ts, which uses validators, and ./precompiled-answers.ts, which provides them.
 */
export interface AnswerValidator {
  (value: unknown): boolean;
  errors?: ErrorObject[] | null;
}
