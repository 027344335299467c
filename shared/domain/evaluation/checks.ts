/**
 * Checks an organization writes, scored in code: 1 or 0, with a reason that says
 * what matched or what was missing, and where (personal data masked as in the predefined
 * deterministic metrics). Pure apart from the time budget every evaluation runs under.
 *
 * - The text types and `regex` compare NFC-normalised text, so a precomposed "é" matches "e" +
 *   combining acute; positions in reasons are code points of that text. `length` counts the code
 *   points of the text as sent (a combining mark is one, an emoji one, a ZWJ sequence several).
 * - Case-insensitive text types compare both sides lower-cased code point by code point (final
 *   sigma read as σ); `regex` uses the `i` flag. Patterns run with the `u` flag when they compile with it.
 * - `retrieval_context` is its chunks joined by a blank line, as turns are joined for a session;
 *   a position names the chunk (`retrieval_context[1] at character 4`).
 * - Every evaluation runs under CHECK_TIME_BUDGET_MS of wall time (a `vm` timeout, which also
 *   interrupts a regular expression); past it the evaluation FAILS, so none takes longer.
 */
import vm from 'node:vm';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { ValidationError } from '../../errors.js';
import type { Check } from '../../schemas/metrics.js';
import { compileUserSchema, loadUserSchemaCompiler } from '../../schemas/user-schemas.js';
import { isJsonFinding } from './deterministic/json.js';
import { MetricInputError, type Finding, type MetricResult } from './deterministic/result.js';
import type { CheckTarget } from './params.js';
import { checkPattern, targetOf } from './check-pattern.js';
import { capReason, charCount, excerptAt, listOf, maskSensitive, shortJson } from './reason-text.js';

/** Wall time one check evaluation may take, all of it (reading the text, matching, the reason). */
export const CHECK_TIME_BUDGET_MS = 50;

/** The text a check reads. */
interface Subject {
  target: CheckTarget;
  /** As sent: `length` counts its code points, JSON types parse it. */
  raw: string;
  /** NFC: what the text types and regex compare. */
  text: string;
  /** retrieval_context: where each chunk starts in `text` (UTF-16 offsets). */
  starts: number[] | undefined;
  folded?: string;
}

const CHUNK_SEPARATOR = '\n\n';

function subjectOf(target: CheckTarget, params: Record<string, unknown>): Subject {
  const value = params[target];
  if (target === 'retrieval_context') {
    const chunks = (Array.isArray(value) ? value : value === undefined || value === null ? [] : [value]).map((c) =>
      typeof c === 'string' ? c : JSON.stringify(c),
    );
    const normal = chunks.map((c) => c.normalize('NFC'));
    const starts: number[] = [];
    let at = 0;
    for (const c of normal) {
      starts.push(at);
      at += c.length + CHUNK_SEPARATOR.length;
    }
    return { target, raw: chunks.join(CHUNK_SEPARATOR), text: normal.join(CHUNK_SEPARATOR), starts };
  }
  if (value === undefined || value === null) throw new MetricInputError(`${target} is missing`);
  const raw = typeof value === 'string' ? value : JSON.stringify(value);
  return { target, raw, text: raw.normalize('NFC'), starts: undefined };
}

/**
 * Lower-cased with every position kept: String#toLowerCase lengthens only "İ" (U+0130, to "i̇"),
 * which is kept as it is; final sigma is read as σ.
 */
export function foldCase(text: string): string {
  const lower = text.includes('\u0130')
    ? text
        .split('\u0130')
        .map((part) => part.toLowerCase())
        .join('\u0130')
    : text.toLowerCase();
  return lower.replace(/ς/g, 'σ');
}

/** Where a UTF-16 offset of the subject's text is, as a reason says it. */
function place(s: Subject, at: number): { field: string; char: number } {
  if (!s.starts) return { field: s.target, char: charCount(s.text.slice(0, at)) + 1 };
  let i = s.starts.length - 1;
  while (i > 0 && s.starts[i]! > at) i--;
  return { field: `${s.target}[${i}]`, char: charCount(s.text.slice(s.starts[i]!, at)) + 1 };
}

const where = (s: Subject, at: number) => {
  const p = place(s, at);
  return `${p.field} at character ${p.char}`;
};
const around = (s: Subject, at: number, length: number) => excerptAt(s.text, at, 20, length);
const quote = (value: string) => shortJson(value, 60);
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const searched = (s: Subject, caseSensitive: boolean) =>
  ` (${plural(charCount(s.text), 'character')} searched${caseSensitive ? '' : ', ignoring case'})`;

/** The first offset of `value` in the subject's text, or −1. */
function find(s: Subject, value: string, caseSensitive: boolean): number {
  const needle = value.normalize('NFC');
  if (caseSensitive) return s.text.indexOf(needle);
  s.folded ??= foldCase(s.text);
  return s.folded.indexOf(foldCase(needle));
}

function containsFinding(s: Subject, value: string, cs: boolean): Finding {
  const at = find(s, value, cs);
  if (at < 0) return { score: 0, detail: `${quote(value)} not found in ${s.target}${searched(s, cs)}` };
  return {
    score: 1,
    detail: `found ${quote(value)} in ${where(s, at)}: ${around(s, at, value.normalize('NFC').length)}`,
  };
}

function notContainsFinding(s: Subject, value: string, cs: boolean): Finding {
  const at = find(s, value, cs);
  if (at < 0) return { score: 1, detail: `${quote(value)} does not appear in ${s.target}${searched(s, cs)}` };
  return {
    score: 0,
    detail: `found the forbidden ${quote(value)} in ${where(s, at)}: ${around(s, at, value.normalize('NFC').length)}`,
  };
}

function equalsFinding(s: Subject, value: string, cs: boolean): Finding {
  const expected = value.normalize('NFC');
  const a = cs ? s.text : foldCase(s.text);
  const b = cs ? expected : foldCase(expected);
  const how = cs ? '' : ' (ignoring case)';
  if (a === b) return { score: 1, detail: `${s.target} equals ${quote(value)}${how}` };
  let i = 0;
  while (i < a.length && i < b.length && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i > 0 && a.charCodeAt(i - 1) >= 0xd800 && a.charCodeAt(i - 1) <= 0xdbff) i--; // the start of the differing code point
  return {
    score: 0,
    detail: `${s.target} differs from the expected value at character ${charCount(a.slice(0, i)) + 1}${how}: expected ${excerptAt(expected, i)}, got ${excerptAt(s.text, i)} (${plural(charCount(s.text), 'character')}, expected ${charCount(expected)})`,
  };
}

function affixFinding(s: Subject, value: string, cs: boolean, end: 'start' | 'end'): Finding {
  const needle = value.normalize('NFC');
  const hay = cs ? s.text : (s.folded ??= foldCase(s.text));
  const wanted = cs ? needle : foldCase(needle);
  const ok = end === 'start' ? hay.startsWith(wanted) : hay.endsWith(wanted);
  const how = cs ? '' : ' (ignoring case)';
  if (ok) return { score: 1, detail: `${s.target} ${end}s with ${quote(value)}${how}` };
  const actual = excerptAt(s.text, end === 'start' ? 0 : s.text.length);
  return { score: 0, detail: `${s.target} does not ${end} with ${quote(value)}${how}: it ${end}s with ${actual}` };
}

function valuesFinding(s: Subject, values: string[], cs: boolean, all: boolean): Finding {
  const hits = values.map((v) => ({ v, at: find(s, v, cs) }));
  const found = hits.filter((h) => h.at >= 0);
  const missing = hits.filter((h) => h.at < 0);
  const item = (h: { v: string; at: number }) => {
    const p = place(s, h.at);
    return s.starts ? `${quote(h.v)} in ${p.field} at character ${p.char}` : `${quote(h.v)} at character ${p.char}`;
  };
  const n = values.length;
  if (all) {
    if (missing.length === 0)
      return {
        score: 1,
        detail: `${n === 1 ? 'the value appears' : `all ${n} values appear`} in ${s.target}: ${listOf(found.map(item), 4)}`,
      };
    return {
      score: 0,
      detail: `${missing.length} of ${plural(n, 'value')} missing from ${s.target}${searched(s, cs)}: ${listOf(
        missing.map((h) => quote(h.v)),
        5,
      )}`,
    };
  }
  if (found.length > 0)
    return {
      score: 1,
      detail: `found ${found.length} of ${plural(n, 'value')} in ${s.target}: ${listOf(found.map(item), 4)}`,
    };
  return {
    score: 0,
    detail: `none of the ${plural(n, 'value')} appears in ${s.target}${searched(s, cs)}: ${listOf(values.map(quote), 5)}`,
  };
}

function regexFinding(s: Subject, pattern: RegExp): Finding {
  const shown = `/${Array.from(maskSensitive(pattern.source)).slice(0, 80).join('')}${pattern.source.length > 80 ? '…' : ''}/${pattern.flags}`;
  const m = pattern.exec(s.text);
  if (!m) return { score: 0, detail: `no match for ${shown} in ${s.target}${searched(s, true)}` };
  return { score: 1, detail: `${shown} matched ${quote(m[0])} in ${where(s, m.index)}` };
}

function jsonSchemaFinding(s: Subject, validate: ValidateFunction): Finding {
  let data: unknown;
  try {
    data = JSON.parse(s.raw);
  } catch {
    return isJsonFinding(s.raw, s.target);
  }
  if (validate(data)) return { score: 1, detail: `${s.target} is JSON that matches the schema` };
  const e = validate.errors?.[0];
  if (!e) return { score: 0, detail: `${s.target} does not match the schema` };
  const extra = (e.params as { additionalProperty?: string }).additionalProperty;
  const at = e.instancePath ? `at ${JSON.stringify(maskSensitive(e.instancePath))}` : 'at the top level';
  return {
    score: 0,
    detail: `${s.target} does not match the schema ${at}: ${e.message ?? 'invalid'}${extra === undefined ? '' : ` (${quote(extra)})`}`,
  };
}

function lengthFinding(s: Subject, min: number | undefined, max: number | undefined): Finding {
  const n = charCount(s.raw);
  const has = `${s.target} has ${plural(n, 'character')}`;
  if (min !== undefined && n < min) return { score: 0, detail: `${has}, fewer than the minimum ${min}` };
  if (max !== undefined && n > max) return { score: 0, detail: `${has}, more than the maximum ${max}` };
  const range =
    min !== undefined && max !== undefined
      ? `${min} to ${max}`
      : min !== undefined
        ? `at least ${min}`
        : `at most ${max}`;
  return { score: 1, detail: `${has} (allowed: ${range})` };
}

/**
 * What scoring this check needs loaded: the users' schema compiler for a `json_schema` check, so
 * an evaluator that scores judge metrics or other checks never loads it. Await it before scoreCheck.
 */
export async function loadCheckScorer(check: Pick<Check, 'type'>): Promise<void> {
  if (check.type === 'json_schema') await loadUserSchemaCompiler();
}

/** Compiled JSON schemas of checks, most recently used last; at most this many are kept. */
const SCHEMA_CACHE_SIZE = 100;
const validators = new Map<string, ValidateFunction>();

function schemaValidator(schema: unknown): ValidateFunction {
  const key = JSON.stringify(schema);
  const cached = validators.get(key);
  if (cached) {
    validators.delete(key);
    validators.set(key, cached);
    return cached;
  }
  let validate: ValidateFunction;
  try {
    validate = compileUserSchema(schema, 'check.schema');
  } catch (error) {
    if (error instanceof ValidationError) throw new MetricInputError(error.message);
    throw error;
  }
  validators.set(key, validate);
  if (validators.size > SCHEMA_CACHE_SIZE) validators.delete(validators.keys().next().value!);
  return validate;
}

/**
 * The check, made ready to score (its pattern or schema compiled once, outside the time budget):
 * a function of the evaluation parameters.
 */
function prepare(check: Check): (params: Record<string, unknown>) => Finding {
  const cs = check.caseSensitive !== false;
  const value = check.value ?? '';
  const values = check.values ?? [];
  const read = (params: Record<string, unknown>) => subjectOf(targetOf(check), params);
  switch (check.type) {
    case 'contains':
      return (p) => containsFinding(read(p), value, cs);
    case 'not_contains':
      return (p) => notContainsFinding(read(p), value, cs);
    case 'equals':
      return (p) => equalsFinding(read(p), value, cs);
    case 'starts_with':
      return (p) => affixFinding(read(p), value, cs, 'start');
    case 'ends_with':
      return (p) => affixFinding(read(p), value, cs, 'end');
    case 'contains_any':
      return (p) => valuesFinding(read(p), values, cs, false);
    case 'contains_all':
      return (p) => valuesFinding(read(p), values, cs, true);
    case 'regex': {
      const pattern = checkPattern(check);
      return (p) => regexFinding(read(p), pattern);
    }
    case 'is_json':
      return (p) => {
        const s = read(p);
        return isJsonFinding(s.raw, s.target);
      };
    case 'json_schema': {
      const validate = schemaValidator(check.schema);
      return (p) => jsonSchemaFinding(read(p), validate);
    }
    case 'length':
      return (p) => lengthFinding(read(p), check.min, check.max);
  }
}

let warm = false;
/**
 * The first evaluation of a process compiles what every later one reuses (the masking patterns,
 * Unicode tables, the sandbox): done once, outside any budget, so a cold start cannot spend a
 * check's budget.
 */
function warmUp(): void {
  if (warm) return;
  warm = true;
  const sample = {
    actual_output: 'Écrivez à jane.doe@example.com ou au +1 415-555-0134, réf. ΟΔΟΣ 4111 1111 1111 1111',
  };
  for (const check of [
    { type: 'contains', value: 'ΟΔΟΣ', caseSensitive: false },
    { type: 'equals', value: 'x' },
    { type: 'regex', value: '\\p{L}+' },
    { type: 'length', min: 1 },
  ] as Check[]) {
    withinTimeBudget(() => prepare(check)(sample), 10_000);
  }
}

const sandbox = vm.createContext({});
const callRun = new vm.Script('run()');

/** CPU time of this thread (this process where the runtime cannot tell threads apart), in ms. */
const cpuMs = (): number => {
  const usage = typeof process.threadCpuUsage === 'function' ? process.threadCpuUsage() : process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

/** Attempts after the first when an attempt was stopped without having had the CPU (see withinTimeBudget). */
const STARVED_RETRIES = 3;
/** CPU time every attempt of one evaluation may take together, below the 100 ms no check evaluation may exceed, with a margin for the timer's lag. */
const STARVED_TOTAL_CPU_MS = 90;

/**
 * Runs `work` (pure: it may run again), stopped after `ms` milliseconds of wall time; then `done`
 * is false. An attempt stopped while this thread had the CPU for less than half of `ms` was not
 * slow but starved (a busy machine): it runs again, up to STARVED_RETRIES more times, while the
 * CPU time of all attempts stays within STARVED_TOTAL_CPU_MS.
 */
export function withinTimeBudget<T>(work: () => T, ms: number): { done: true; value: T } | { done: false } {
  let spent = 0;
  for (let attempt = 0; ; attempt++) {
    const cpuAtStart = cpuMs();
    sandbox.run = work;
    try {
      return { done: true, value: callRun.runInContext(sandbox, { timeout: ms }) as T };
    } catch (error) {
      if ((error as { code?: string }).code !== 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw error;
      const used = cpuMs() - cpuAtStart;
      spent += used;
      // Another attempt only while all of them together stay within the evaluation's CPU bound.
      if (used >= ms / 2 || attempt >= STARVED_RETRIES || spent + ms > STARVED_TOTAL_CPU_MS) return { done: false };
    } finally {
      sandbox.run = undefined;
    }
  }
}

/**
 * Scores a metric's check on the evaluation parameters: the score (1 or 0) and a reason starting
 * with the metric's name. Throws MetricInputError (the evaluation FAILS) when the target is
 * missing or the time budget runs out. A `json_schema` check needs loadCheckScorer first.
 */
export function scoreCheck(
  name: string,
  check: Check,
  params: Record<string, unknown>,
  budgetMs = CHECK_TIME_BUDGET_MS,
): MetricResult {
  warmUp();
  const find = prepare(check);
  const outcome = withinTimeBudget(() => {
    const f = find(params);
    return { score: f.score, reason: capReason(`${name}: ${f.detail}`) };
  }, budgetMs);
  if (!outcome.done)
    throw new MetricInputError(
      `the check was stopped: it took longer than its ${budgetMs} ms time budget on ${targetOf(check)}`,
    );
  return outcome.value;
}
