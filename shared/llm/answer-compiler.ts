import { Ajv, type Options, type ValidateFunction } from 'ajv';

/**
 * The compiler of LLM answer schemas, loaded by ./answer.ts (`#answer-compiler`, shipped beside a
 * function's bundle rather than in it: infra/lazy-modules.ts) only for a schema that has no
 * precompiled validator: every answer schema where nothing is precompiled (the local server,
 * tests). The one module of shared/llm that imports ajv.
 */

/** Strict: an answer schema with a keyword ajv does not know is a bug. */
export const ANSWER_AJV_OPTIONS: Options = { allErrors: false, strict: true };

/** Compiles one schema and forgets it at once: the caller keeps the function (see answer.ts). */
export function newAnswerCompiler(): (schema: object) => ValidateFunction {
  const ajv = new Ajv(ANSWER_AJV_OPTIONS);
  return (schema) => {
    const validate = ajv.compile(schema);
    ajv.removeSchema(schema);
    return validate;
  };
}
