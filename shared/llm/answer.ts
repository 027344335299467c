import type { ErrorObject } from 'ajv';
import { precompiledAnswerValidators } from '#answer-validators';
import { describeError } from '../schemas/describe.js';
import type { AnswerValidator } from './answer-validator.js';

/**
 * Pure parts of the LLM client: reading and validating a structured answer, and
 * the wait before a retry. No I/O here, so unit tests cover every branch.
 */

export type LlmPurpose = 'judge' | 'simulator' | 'generator';

export type { AnswerValidator } from './answer-validator.js';

const compiled = new WeakMap<object, AnswerValidator>();
let compiler: Promise<(schema: object) => AnswerValidator> | undefined;

/** What a built schema says beyond its shape: the ajv error of the first rule an answer of the shape breaks. */
export type BuiltRules = (value: unknown) => ErrorObject | undefined;
const built = new WeakMap<object, { shape: object; rules: BuiltRules }>();

/**
 * Validators precompiled for a module's own fixed schemas (the generator's shapes:
 * `#generator-answer-validators`), given by that module so only its bundle holds them.
 */
export function usePrecompiledAnswerValidators(validators: ReadonlyMap<object, AnswerValidator>): void {
  for (const [schema, validate] of validators) compiled.set(schema, validate);
}

/**
 * Declares `schema`, built for one call and sent to the model as it is, to be the fixed `shape`
 * (./answer-schemas.ts, precompiled in the bundle of the module that builds it) plus what `rules`
 * checks (the counts asked, exact keys). Its answers are checked that way, so a function that
 * builds schemas per call loads no schema compiler; test/unit/generation.test.ts compares both
 * checks with ajv compiling the whole schema, on fuzzed answers.
 */
export function builtOn<S extends object>(schema: S, shape: object, rules: BuiltRules): S {
  built.set(schema, { shape, rules });
  return schema;
}

/**
 * The validator of an answer schema. A fixed schema (./answer-schemas.ts) has its validator
 * precompiled in a function bundle (`#answer-validators`); a schema built on a fixed shape
 * (`builtOn`) is checked by the shape's validator and its own rules; any other schema is compiled
 * once per schema object by ajv, which is loaded with the first such schema. The WeakMap alone holds
 * the validator of a schema built per call, and lets it go with the schema.
 */
export async function answerValidator(schema: object): Promise<AnswerValidator> {
  const ready = precompiledAnswerValidators.get(schema) ?? compiled.get(schema);
  if (ready) return ready;
  let validate: AnswerValidator;
  const on = built.get(schema);
  if (on) {
    const shape = await answerValidator(on.shape);
    const check: AnswerValidator = (value) => {
      if (!shape(value)) {
        check.errors = shape.errors;
        return false;
      }
      const broken = on.rules(value);
      check.errors = broken ? [broken] : null;
      return broken === undefined;
    };
    validate = check;
  } else {
    compiler ??= import('#answer-compiler').then((m) => m.newAnswerCompiler());
    const compile = await compiler;
    validate = compiled.get(schema) ?? compile(schema);
  }
  compiled.set(schema, validate);
  return validate;
}

/** At most 500 characters of what the model said, as a JSON string (so a quote never reads as ours). */
export function quote(raw: string): string {
  return JSON.stringify(raw.length > 500 ? `${raw.slice(0, 500)}…` : raw);
}

export type ParsedAnswer<T> = { ok: true; value: T } | { ok: false; error: string };

/**
 * `choices[0].message.content` → a value of the schema. A ```json fence around the object is
 * tolerated (some compatible servers add one even in JSON mode); anything else that is not JSON,
 * or JSON that does not match, is an error naming the field and the rule.
 */
export async function parseAnswer<T>(
  raw: string,
  schema: object,
  schemaName: string,
  purpose: LlmPurpose,
): Promise<ParsedAnswer<T>> {
  const text = raw.trim().replace(/^```(?:json)?\s*([\s\S]*?)\s*```$/i, '$1');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ok: false, error: `the ${purpose}'s answer is not JSON: ${quote(raw)}` };
  }
  const validate = await answerValidator(schema);
  if (!validate(parsed)) {
    const rule = describeError(validate.errors?.[0], 'body').replace(/^body /, 'the answer ');
    return { ok: false, error: `the ${purpose}'s answer does not match ${schemaName}: ${rule}` };
  }
  return { ok: true, value: parsed as T };
}

/** What a Chat Completions body carries as the answer: the message content, or why there is none. */
export function answerContent(
  body: unknown,
  purpose: LlmPurpose,
): { ok: true; content: string } | { ok: false; error: string } {
  const message = (body as { choices?: { message?: { content?: unknown; refusal?: unknown } }[] } | undefined)
    ?.choices?.[0]?.message;
  if (typeof message?.refusal === 'string' && message.refusal !== '')
    return { ok: false, error: `the ${purpose} refused to answer: ${quote(message.refusal)}` };
  if (typeof message?.content !== 'string') return { ok: false, error: `the ${purpose} answered without a message` };
  return { ok: true, content: message.content };
}

/**
 * `Retry-After` in milliseconds from now: delta-seconds or an HTTP date (RFC 9110 §10.2.3); OpenAI's
 * `retry-after-ms` wins when present. Undefined when absent or unreadable; never negative.
 */
export function retryAfterMs(
  headers: { get(name: string): string | null },
  now: number = Date.now(),
): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (ms !== null && /^\s*\d+(\.\d+)?\s*$/.test(ms)) return Math.max(0, Math.ceil(Number(ms)));
  const value = headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  if (!/[a-z]/i.test(value)) return undefined; // an HTTP date names its month; "-3" is not one
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * The wait before retry `k` (1-based): exponential from `backoffMs` with equal jitter (half fixed,
 * half random, so concurrent workers spread out), a longer `Retry-After` wins, and both are capped
 * at `maxBackoffMs`.
 */
export function retryDelayMs(
  k: number,
  retryAfter: number | undefined,
  config: { backoffMs: number; maxBackoffMs: number },
  random: () => number = Math.random,
): number {
  const base = config.backoffMs * 2 ** (k - 1);
  const backoff = base / 2 + (random() * base) / 2;
  return Math.round(Math.min(config.maxBackoffMs, Math.max(backoff, retryAfter ?? 0)));
}
