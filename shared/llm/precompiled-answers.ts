import type { AnswerValidator } from './answer-validator.js';

/**
 * `#answer-validators` and `#generator-answer-validators` where nothing is precompiled (the local
 * server, the CLIs, the tests): no validator, so ./answer.ts compiles the fixed answer schemas on
 * first use like any other. A function bundle resolves them to `.build/validators/llm-answers.ts`
 * and `generator-answers.ts` instead (infra/validators.ts): the schemas of ./answer-schemas.ts as
 * ajv standalone code.
 */
export const precompiledAnswerValidators: ReadonlyMap<object, AnswerValidator> = new Map();
