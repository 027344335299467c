import { ValidationError } from '../../errors.js';
import type { Check, MetricCreate } from '../../schemas/metrics.js';
import { compileUserSchema, loadUserSchemaCompiler } from '../../schemas/user-schemas.js';
import { checkPattern, targetOf } from '../evaluation/check-pattern.js';
import { member } from '../evaluation/deterministic/json.js';
import type { CheckType, EvaluationParam } from '../evaluation/params.js';

/** Pure rules of a check an organization writes: which fields each type takes. */

const OPTIONAL_FIELDS = ['value', 'values', 'caseSensitive', 'min', 'max', 'schema'] as const;
type OptionalField = (typeof OPTIONAL_FIELDS)[number];

/** The fields each type takes besides `type` and `target`; the first is required (length: min or max). */
const FIELDS: Record<CheckType, readonly OptionalField[]> = {
  contains: ['value', 'caseSensitive'],
  not_contains: ['value', 'caseSensitive'],
  equals: ['value', 'caseSensitive'],
  starts_with: ['value', 'caseSensitive'],
  ends_with: ['value', 'caseSensitive'],
  contains_any: ['values', 'caseSensitive'],
  contains_all: ['values', 'caseSensitive'],
  regex: ['value', 'caseSensitive'],
  is_json: [],
  json_schema: ['schema'],
  length: ['min', 'max'],
};

export const REGEX_MAX_CHARS = 1_000;
/** Patterns (`pattern`, `patternProperties`) analysed in one check's schema. */
export const SCHEMA_MAX_PATTERNS = 20;

let regexSafety: typeof import('#regex-safety') | undefined;

/**
 * Loads what validating this check needs beyond the rules here: the regex analysers for a regex
 * or a JSON Schema (its patterns), the schema compiler for a JSON Schema. Awaited before
 * normaliseCheck, so a metric without such a check does not load them at all.
 */
export async function loadCheckAnalysers(check: Pick<Check, 'type'> | null | undefined): Promise<void> {
  if (check?.type !== 'regex' && check?.type !== 'json_schema') return;
  regexSafety ??= await import('#regex-safety');
  if (check.type === 'json_schema') await loadUserSchemaCompiler();
}

/** A check's pattern (Annex B syntax accepted, see checkPattern), or a JSON Schema's (`u` flag only, as ajv runs it). */
function checkRegex(pattern: string, caseSensitive: boolean, field: string, annexB: boolean): void {
  if (pattern.length > REGEX_MAX_CHARS)
    throw new ValidationError(`${field} must have at most ${REGEX_MAX_CHARS} characters as a regular expression`);
  let compiled: RegExp;
  try {
    compiled = annexB ? checkPattern({ value: pattern, caseSensitive }) : new RegExp(pattern, 'u');
  } catch (error) {
    throw new ValidationError(
      `${field} is not a valid ECMAScript regular expression (u flag): ${(error as Error).message.slice(0, 200)}`,
    );
  }
  if (!regexSafety) throw new Error('the regex analysers are not loaded: await loadCheckAnalysers() first');
  const problem = regexSafety.catastrophicBacktracking(pattern, caseSensitive, compiled.unicode);
  if (problem) throw new ValidationError(`${field} ${problem}`);
}

const SUBSCHEMA = [
  'additionalProperties',
  'items',
  'contains',
  'not',
  'if',
  'then',
  'else',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contentSchema',
];
const SUBSCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SUBSCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];

/** Every regular expression of a JSON schema (`pattern` values, `patternProperties` keys), with where it is. */
export function schemaPatterns(
  schema: unknown,
  at: string,
  out: { pattern: string; at: string }[] = [],
): { pattern: string; at: string }[] {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return out;
  const s = schema as Record<string, unknown>;
  if (typeof s.pattern === 'string') out.push({ pattern: s.pattern, at: `${at}.pattern` });
  if (typeof s.patternProperties === 'object' && s.patternProperties !== null) {
    for (const key of Object.keys(s.patternProperties))
      out.push({ pattern: key, at: `${at}.patternProperties key ${JSON.stringify(key.slice(0, 60))}` });
  }
  for (const k of SUBSCHEMA) if (k in s) schemaPatterns(s[k], member(at, k), out);
  for (const k of SUBSCHEMA_LISTS)
    if (Array.isArray(s[k]))
      (s[k] as unknown[]).forEach((x, i) => {
        schemaPatterns(x, `${member(at, k)}[${i}]`, out);
      });
  for (const k of SUBSCHEMA_MAPS) {
    const map = s[k];
    if (typeof map === 'object' && map !== null && !Array.isArray(map))
      for (const [key, x] of Object.entries(map)) schemaPatterns(x, member(member(at, k), key), out);
  }
  return out;
}

function checkJsonSchema(schema: unknown): void {
  compileUserSchema(schema, 'check.schema');
  const patterns = schemaPatterns(schema, 'check.schema');
  if (patterns.length > SCHEMA_MAX_PATTERNS)
    throw new ValidationError(
      `check.schema must have at most ${SCHEMA_MAX_PATTERNS} patterns (pattern and patternProperties), has ${patterns.length}`,
    );
  for (const p of patterns) checkRegex(p.pattern, true, p.at, false);
}

/**
 * Validates a check (every message names the field) and returns it as stored: `target` filled in,
 * and `caseSensitive` where it applies.
 */
export function normaliseCheck(check: Check): Check {
  const takes = FIELDS[check.type];
  for (const field of OPTIONAL_FIELDS) {
    if (check[field] !== undefined && !takes.includes(field))
      throw new ValidationError(`check.${field} must not be set when check.type is ${check.type}`);
  }
  if (check.type === 'length') {
    if (check.min === undefined && check.max === undefined)
      throw new ValidationError('check.min or check.max is required when check.type is length');
    if (check.min !== undefined && check.max !== undefined && check.min > check.max)
      throw new ValidationError(`check.min must not be greater than check.max (${check.min} > ${check.max})`);
  } else if (takes[0] && check[takes[0]] === undefined) {
    throw new ValidationError(`check.${takes[0]} is required when check.type is ${check.type}`);
  }
  const caseSensitive = check.caseSensitive ?? true;
  if (check.type === 'regex') checkRegex(check.value!, caseSensitive, 'check.value', true);
  if (check.type === 'json_schema') checkJsonSchema(check.schema);
  const stored: Check = { type: check.type, target: targetOf(check) };
  for (const field of takes) {
    const value = field === 'caseSensitive' ? caseSensitive : check[field];
    if (value !== undefined) Object.assign(stored, { [field]: value });
  }
  return stored;
}

/**
 * What scores a new metric: its check (DETERMINISTIC) with evaluationParams derived from the
 * target, or the evaluationParams sent (every other source).
 */
export function scoringOf(input: Pick<MetricCreate, 'check' | 'evaluationParams'>): {
  check: Check | null;
  evaluationParams: EvaluationParam[];
} {
  if (input.check) {
    if (input.evaluationParams !== undefined)
      throw new ValidationError('evaluationParams must not be set with a check: it is derived from check.target');
    const check = normaliseCheck(input.check);
    return { check, evaluationParams: [targetOf(check)] };
  }
  if (input.evaluationParams === undefined) throw new ValidationError('evaluationParams is required');
  return { check: null, evaluationParams: input.evaluationParams };
}
