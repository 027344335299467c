import { describe, expect, it } from 'vitest';
import {
  applySpecification,
  canonicalLanguageTag,
  checkTest,
  isExtendable,
} from '../../shared/domain/tests/test-rules.js';
import { parseCsv } from '../../shared/domain/tests/csv.js';
import { readCases } from '../../shared/domain/tests/test-import.js';
import type { TestRecord } from '../../shared/schemas/tests.js';

const base: TestRecord = {
  id: 't',
  organizationId: 'o',
  productId: 'p',
  userId: 'u',
  name: 'n',
  type: 'QUALITY',
  models: [],
  groundTruthUri: null,
  uri: null,
  error: null,
  status: 'PENDING',
  fewShot: null,
  languageCode: 'en',
  backgroundNoiseProfile: null,
  backgroundNoiseLevel: null,
  variants: [],
  customVariantDescription: null,
  strategies: [],
  customUserPersona: null,
  maxTestCases: null,
  sourceTestId: null,
  dataCatalogUri: null,
  metadata: {},
  specificationId: null,
  isExtendable: false,
  testCaseCount: 0,
  createdAt: '',
};

describe('test rules', () => {
  it('canonicalises BCP-47 case and refuses invalid tags', () => {
    expect(canonicalLanguageTag('EN-us')).toBe('en-US');
    expect(canonicalLanguageTag('zh-hant-tw')).toBe('zh-Hant-TW');
    expect(canonicalLanguageTag('es-419')).toBe('es-419');
    expect(() => canonicalLanguageTag('english please')).toThrow(/valid BCP-47/);
    expect(() => canonicalLanguageTag('e')).toThrow(/valid BCP-47/);
  });

  it.each([
    [{ type: 'QUALITY', variants: ['toxicity'] }, /variants\[0\] must be one of: rag/],
    [{ type: 'SCENARIOS', variants: ['rag'], strategies: ['x'] }, 'variants must be empty for SCENARIOS tests'],
    [
      { type: 'RED_TEAMING', variants: ['custom'] },
      'customVariantDescription is required when variants contain custom',
    ],
    [{ type: 'SCENARIOS', strategies: [] }, 'strategies must have at least 1 item for SCENARIOS tests'],
    [
      { backgroundNoiseProfile: 'office' },
      'backgroundNoiseProfile and backgroundNoiseLevel must be set together (or both null)',
    ],
    [{ dataCatalogUri: 's3://b/k' }, 'dataCatalogUri is only for SCENARIOS tests'],
    [{ type: 'RED_TEAMING', fewShot: 'x' }, 'fewShot is only for QUALITY tests'],
  ])('%j is refused', (override, message) => {
    expect(() => checkTest({ ...base, ...override } as TestRecord)).toThrow(message);
  });

  it('fills type and variants from a specification and insists they agree', () => {
    const spec = { id: 's', testType: 'RED_TEAMING', testVariant: 'misuse' } as never;
    expect(applySpecification({}, spec)).toEqual({ type: 'RED_TEAMING', variants: ['misuse'] });
    expect(() => applySpecification({ type: 'QUALITY' }, spec)).toThrow(/disagrees with specification/);
    expect(() => applySpecification({ variants: ['toxicity'] }, spec)).toThrow(/must include misuse/);
    expect(() => applySpecification({}, undefined)).toThrow(/type is required/);
  });

  it('derives isExtendable', () => {
    expect(isExtendable({ uri: 's3://b/k', type: 'RED_TEAMING', groundTruthUri: null })).toBe(false);
    expect(isExtendable({ uri: null, type: 'QUALITY', groundTruthUri: null })).toBe(false);
    expect(isExtendable({ uri: null, type: 'QUALITY', groundTruthUri: 's3://b/doc.pdf' })).toBe(true);
    expect(isExtendable({ uri: null, type: 'SCENARIOS', groundTruthUri: null })).toBe(true);
  });
});

async function* chunks(text: string, size = 7) {
  for (let i = 0; i < text.length; i += size) yield Buffer.from(text.slice(i, i + size));
}

describe('CSV', () => {
  it('handles quotes, escaped quotes, embedded newlines, CRLF and a BOM', async () => {
    expect(await parseCsv('\ufeffa,b\r\n"x, ""y""","multi\nline"\n')).toEqual([
      { line: 1, fields: ['a', 'b'] },
      { line: 2, fields: ['x, "y"', 'multi\nline'] },
    ]);
  });

  it('reads cases across chunk boundaries with the columns of the type', async () => {
    const drafts = await readCases(
      'SCENARIOS',
      chunks(
        'goal,user_persona,tag,stopping_criterias,max_iterations\nBook a table,"Busy parent, two kids",booking,got a table|gave up;timeout,5\n',
      ),
    );
    expect(drafts).toEqual([
      expect.objectContaining({
        index: 1,
        goal: 'Book a table',
        userPersona: 'Busy parent, two kids',
        variant: 'booking',
        stoppingCriterias: ['got a table', 'gave up', 'timeout'],
        maxIterations: 5,
      }),
    ]);
  });

  it.each([
    ['QUALITY', 'input\nhello\n', 'line 1: missing column expected_output for a QUALITY test'],
    ['RED_TEAMING', 'input,extra\nx,y\n', /^line 1: unknown column extra/],
    ['QUALITY', 'input,expected_output\na,b\nc\n', 'line 3: expected 2 fields, found 1'],
    ['QUALITY', 'input,expected_output\na,b\n ,d\n', 'line 3: input is empty'],
    [
      'SCENARIOS',
      'goal,user_persona,max_iterations\ng,p,zero\n',
      'line 2: max_iterations must be a whole number from 1 to 100',
    ],
    ['QUALITY', 'input,expected_output\n"open,b\n', 'line 2: a quoted field is not closed'],
    ['QUALITY', '', 'the file is empty'],
    ['QUALITY', 'input,expected_output\n', 'the file has a header but no rows'],
  ])('%s file %j fails with %s', async (type, text, message) => {
    await expect(readCases(type as never, chunks(text))).rejects.toThrow(message);
  });
});
