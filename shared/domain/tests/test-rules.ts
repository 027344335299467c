import { ValidationError } from '../../errors.js';
import type { TestCreate } from '../../schemas/tests.js';
import type { StoredSpecification } from '../../schemas/specifications.js';
import { variantsOf, type TestType } from '../evaluation/params.js';
import { RED_TEAMING_STRATEGIES, SCENARIOS_STRATEGIES } from '../generation/strategies.js';
import type { TestRecord } from '../../schemas/tests.js';

/** Pure rules of a test. */

/**
 * A valid BCP-47 tag in canonical case (language lower, script title, region upper), keeping the
 * subtags as given. `Intl.getCanonicalLocales` decides validity.
 */
export function canonicalLanguageTag(tag: string, field = 'languageCode'): string {
  try {
    Intl.getCanonicalLocales(tag);
  } catch {
    throw new ValidationError(`${field} must be a valid BCP-47 language tag such as en or pt-BR`);
  }
  return tag
    .split('-')
    .map((sub, i) => {
      if (i === 0) return sub.toLowerCase();
      if (/^[A-Za-z]{4}$/.test(sub)) return sub[0]!.toUpperCase() + sub.slice(1).toLowerCase();
      if (/^[A-Za-z]{2}$/.test(sub)) return sub.toUpperCase();
      return sub.toLowerCase();
    })
    .join('-');
}

/** Fills type and variants from the specification when omitted; when given they must agree with it. */
export function applySpecification(
  input: Pick<TestCreate, 'type' | 'variants'>,
  spec: StoredSpecification | undefined,
): { type: TestType; variants: string[] | undefined } {
  if (!spec) {
    if (!input.type) throw new ValidationError('type is required (or a specificationId whose testType gives it)');
    return { type: input.type, variants: input.variants };
  }
  if (input.type && spec.testType && input.type !== spec.testType) {
    throw new ValidationError(`type ${input.type} disagrees with specification ${spec.id} (testType ${spec.testType})`);
  }
  const type = input.type ?? spec.testType;
  if (!type) throw new ValidationError(`type is required: specification ${spec.id} has no testType`);
  if (input.variants && spec.testVariant && !input.variants.includes(spec.testVariant)) {
    throw new ValidationError(`variants must include ${spec.testVariant}, the testVariant of specification ${spec.id}`);
  }
  const variants = input.variants ?? (spec.testVariant ? [spec.testVariant] : undefined);
  return { type, variants };
}

/** RED_TEAMING always includes `original` (first: every other strategy transforms it). */
export function defaultStrategies(type: TestType, given: string[] | undefined): string[] {
  if (type !== 'RED_TEAMING') return given ?? [];
  return ['original', ...(given ?? []).filter((s) => s !== 'original')];
}

/** maxTestCases of a generated test: its default and its upper bound per type. */
export const TEST_CASE_LIMITS: Readonly<Record<TestType, { default: number; max: number }>> = {
  QUALITY: { default: 50, max: 1000 },
  RED_TEAMING: { default: 50, max: 1000 },
  SCENARIOS: { default: 20, max: 100 },
};

/** A generated test's maxTestCases: the given one within its type's bound, else the default; null for an uploaded test. */
export function maxTestCasesOf(type: TestType, given: number | undefined, uploaded: boolean): number | null {
  const limits = TEST_CASE_LIMITS[type];
  if (given !== undefined && given > limits.max)
    throw new ValidationError(`maxTestCases must be at most ${limits.max} for ${type} tests`);
  return given ?? (uploaded ? null : limits.default);
}

function checkStrategies(t: TestRecord): void {
  if (t.type === 'QUALITY' && t.strategies.length > 0)
    throw new ValidationError('strategies must be empty for QUALITY tests (QUALITY takes no strategies)');
  const allowed: readonly string[] = t.type === 'RED_TEAMING' ? RED_TEAMING_STRATEGIES : SCENARIOS_STRATEGIES;
  for (const [i, s] of t.strategies.entries()) {
    if (!allowed.includes(s))
      throw new ValidationError(`strategies[${i}] must be one of: ${allowed.join(', ')} (type ${t.type})`);
  }
}

/** Whole-record rules, after defaults. */
export function checkTest(t: TestRecord): void {
  const allowed = variantsOf(t.type);
  if (t.type === 'SCENARIOS' && t.variants.length > 0)
    throw new ValidationError('variants must be empty for SCENARIOS tests');
  for (const [i, v] of t.variants.entries()) {
    if (!allowed.includes(v))
      throw new ValidationError(`variants[${i}] must be one of: ${allowed.join(', ')} (type ${t.type})`);
  }
  if (t.variants.includes('custom') && !t.customVariantDescription) {
    throw new ValidationError('customVariantDescription is required when variants contain custom');
  }
  if (!t.variants.includes('custom') && t.customVariantDescription) {
    throw new ValidationError('customVariantDescription is only for tests whose variants contain custom');
  }
  if (t.type === 'SCENARIOS' && t.strategies.length === 0)
    throw new ValidationError('strategies must have at least 1 item for SCENARIOS tests');
  checkStrategies(t);
  if (t.sourceTestId && t.type !== 'SCENARIOS') throw new ValidationError('sourceTestId is only for SCENARIOS tests');
  if ((t.backgroundNoiseProfile === null) !== (t.backgroundNoiseLevel === null)) {
    throw new ValidationError('backgroundNoiseProfile and backgroundNoiseLevel must be set together (or both null)');
  }
  if (t.dataCatalogUri && t.type !== 'SCENARIOS')
    throw new ValidationError('dataCatalogUri is only for SCENARIOS tests');
  if (t.fewShot && t.type !== 'QUALITY') throw new ValidationError('fewShot is only for QUALITY tests');
  if (t.uri && t.groundTruthUri)
    throw new ValidationError('uri (an uploaded test) and groundTruthUri (a generated one) cannot both be set');
}

/** Generated tests can be extended by re-running their generator; QUALITY needs a ground-truth document. */
export function isExtendable(t: Pick<TestRecord, 'uri' | 'type' | 'groundTruthUri'>): boolean {
  if (t.uri) return false;
  if (t.type === 'QUALITY') return Boolean(t.groundTruthUri);
  return true;
}
