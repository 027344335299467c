import vm from 'node:vm';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { CHECK_TIME_BUDGET_MS, foldCase, scoreCheck, withinTimeBudget } from '../../shared/domain/evaluation/checks.js';
import { MetricInputError } from '../../shared/domain/evaluation/deterministic.js';
import { catastrophicBacktracking, flatness, withoutGroupNames } from '../../shared/domain/evaluation/regex-safety.js';
import {
  loadCheckAnalysers,
  normaliseCheck,
  schemaPatterns,
  scoringOf,
} from '../../shared/domain/metrics/check-rules.js';
import { compileUserSchema } from '../../shared/schemas/user-schemas.js';
import { ValidationError } from '../../shared/errors.js';
import type { Check } from '../../shared/schemas/metrics.js';

// What POST /metrics loads for a regex or JSON Schema check before its rules run (both, here).
beforeAll(() => loadCheckAnalysers({ type: 'json_schema' }));

const score = (check: Check, params: Record<string, unknown>) => scoreCheck('guard', normaliseCheck(check), params);
const out = (text: string) => ({ actual_output: text });

describe('text checks', () => {
  it('contains: match, no match, case sensitivity, with where it was found', () => {
    const check: Check = { type: 'contains', value: 'refund policy' };
    expect(score(check, out('Please read our refund policy first.'))).toEqual({
      score: 1,
      reason: 'guard: found "refund policy" in actual_output at character 17: "Please read our refund policy first."',
    });
    expect(score(check, out('Please read our Refund Policy first.'))).toEqual({
      score: 0,
      reason: 'guard: "refund policy" not found in actual_output (36 characters searched)',
    });
    expect(score({ ...check, caseSensitive: false }, out('Please read our Refund Policy first.'))).toMatchObject({
      score: 1,
      reason: expect.stringContaining('at character 17'),
    });
    expect(score({ ...check, caseSensitive: false }, out('no such thing'))).toMatchObject({
      score: 0,
      reason: 'guard: "refund policy" not found in actual_output (13 characters searched, ignoring case)',
    });
  });

  it('not_contains: 1 when absent, 0 with the place of the forbidden text, personal data masked', () => {
    const check: Check = { type: 'not_contains', value: 'internal.corp' };
    expect(score(check, out('All good.'))).toEqual({
      score: 1,
      reason: 'guard: "internal.corp" does not appear in actual_output (9 characters searched)',
    });
    const r = score(check, out('Mail jane.doe@example.com or see wiki.internal.corp/x'));
    expect(r.score).toBe(0);
    expect(r.reason).toMatch(/^guard: found the forbidden "internal\.corp" in actual_output at character 39: /);
    expect(r.reason).not.toContain('jane.doe@example.com');
    expect(score({ ...check, caseSensitive: false }, out('see WIKI.INTERNAL.CORP'))).toMatchObject({ score: 0 });
    expect(score(check, out('see WIKI.INTERNAL.CORP'))).toMatchObject({ score: 1 });
  });

  it('equals: exact by default, case-insensitive on request, and says where the texts first differ', () => {
    expect(score({ type: 'equals', value: 'Yes' }, out('Yes'))).toEqual({
      score: 1,
      reason: 'guard: actual_output equals "Yes"',
    });
    expect(score({ type: 'equals', value: 'Yes' }, out('yes'))).toEqual({
      score: 0,
      reason:
        'guard: actual_output differs from the expected value at character 1: expected "Yes", got "yes" (3 characters, expected 3)',
    });
    expect(score({ type: 'equals', value: 'Yes', caseSensitive: false }, out('yES'))).toEqual({
      score: 1,
      reason: 'guard: actual_output equals "Yes" (ignoring case)',
    });
    expect(score({ type: 'equals', value: 'Yes' }, out('Yes.'))).toMatchObject({
      score: 0,
      reason: expect.stringContaining('at character 4'),
    });
  });

  it('starts_with and ends_with', () => {
    expect(score({ type: 'starts_with', value: 'Dear' }, out('Dear customer, thanks.'))).toEqual({
      score: 1,
      reason: 'guard: actual_output starts with "Dear"',
    });
    expect(score({ type: 'starts_with', value: 'Dear' }, out('Hi customer, thanks for writing to us today.'))).toEqual({
      score: 0,
      reason: 'guard: actual_output does not start with "Dear": it starts with "Hi customer, thanks …"',
    });
    expect(score({ type: 'starts_with', value: 'dear', caseSensitive: false }, out('DEAR customer'))).toMatchObject({
      score: 1,
    });
    expect(score({ type: 'ends_with', value: 'Best regards.' }, out('Thanks. Best regards.'))).toMatchObject({
      score: 1,
    });
    expect(score({ type: 'ends_with', value: 'Best regards.' }, out('Thanks for writing to us. Cheers!'))).toEqual({
      score: 0,
      reason: 'guard: actual_output does not end with "Best regards.": it ends with "…iting to us. Cheers!"',
    });
  });

  it('contains_any and contains_all name what was found and what is missing', () => {
    const text = out('You can return it or ask for a refund.');
    expect(score({ type: 'contains_any', values: ['exchange', 'refund', 'return'] }, text)).toEqual({
      score: 1,
      reason: 'guard: found 2 of 3 values in actual_output: "refund" at character 32, "return" at character 9',
    });
    expect(score({ type: 'contains_any', values: ['exchange', 'voucher'] }, text)).toEqual({
      score: 0,
      reason: 'guard: none of the 2 values appears in actual_output (38 characters searched): "exchange", "voucher"',
    });
    expect(score({ type: 'contains_all', values: ['refund', 'return'] }, text)).toEqual({
      score: 1,
      reason: 'guard: all 2 values appear in actual_output: "refund" at character 32, "return" at character 9',
    });
    expect(score({ type: 'contains_all', values: ['refund', 'Return', 'receipt'] }, text)).toEqual({
      score: 0,
      reason: 'guard: 2 of 3 values missing from actual_output (38 characters searched): "Return", "receipt"',
    });
    expect(score({ type: 'contains_all', values: ['REFUND', 'Return'], caseSensitive: false }, text)).toMatchObject({
      score: 1,
    });
  });
});

describe('regex checks', () => {
  it('matches anywhere (ECMAScript, u flag), shows the match and where; caseSensitive adds the i flag', () => {
    const phone: Check = { type: 'regex', value: '^\\d{3}-\\d{4}$' };
    expect(score(phone, out('555-0134'))).toEqual({
      score: 1,
      reason: 'guard: /^\\d{3}-\\d{4}$/u matched "555-0134" in actual_output at character 1',
    });
    expect(score(phone, out('call 555-0134'))).toEqual({
      score: 0,
      reason: 'guard: no match for /^\\d{3}-\\d{4}$/u in actual_output (13 characters searched)',
    });
    expect(score({ type: 'regex', value: 'refund policy' }, out('See the Refund Policy'))).toMatchObject({ score: 0 });
    expect(
      score({ type: 'regex', value: 'refund policy', caseSensitive: false }, out('See the Refund Policy')),
    ).toEqual({
      score: 1,
      reason: 'guard: /refund policy/iu matched "Refund Policy" in actual_output at character 9',
    });
    // named groups and back-references are ECMAScript, and accepted
    expect(score({ type: 'regex', value: '(?<word>\\p{L}+) \\k<word>' }, out('it is is here'))).toMatchObject({
      score: 1,
      reason: expect.stringContaining('"is is"'),
    });
  });

  it('reads a pattern that only compiles without the u flag as Annex B does (escapes copied from other engines)', () => {
    const phone: Check = { type: 'regex', value: '^\\d{3}\\-\\d{4}$' };
    expect(normaliseCheck(phone)).toMatchObject({ value: '^\\d{3}\\-\\d{4}$' });
    expect(score(phone, out('555-0134'))).toEqual({
      score: 1,
      reason: 'guard: /^\\d{3}\\-\\d{4}$/ matched "555-0134" in actual_output at character 1',
    });
    expect(score({ type: 'regex', value: 'say \\"hi\\"', caseSensitive: false }, out('They SAY "hi"'))).toMatchObject({
      score: 1,
      reason: expect.stringContaining('/i matched'),
    });
    // Still refused: what compiles in neither reading, and catastrophic patterns in either.
    expect(() => normaliseCheck({ type: 'regex', value: '(' })).toThrow(
      /^check\.value is not a valid ECMAScript regular expression/,
    );
    expect(() => normaliseCheck({ type: 'regex', value: '(\\-+)+$' })).toThrow(
      /^check\.value can backtrack catastrophically/,
    );
    // A JSON Schema pattern runs as ajv runs it, with the u flag only.
    expect(() => normaliseCheck({ type: 'json_schema', schema: { type: 'string', pattern: '\\d\\-\\d' } })).toThrow(
      /^check\.schema/,
    );
  });

  it('masks personal data a match holds', () => {
    const r = score({ type: 'regex', value: '[\\w.]+@[\\w.]+' }, out('write to jane.doe@example.com'));
    expect(r.score).toBe(1);
    expect(r.reason).not.toContain('jane.doe@example.com');
    expect(r.reason).toContain('at character 10');
  });
});

describe('JSON checks', () => {
  it('is_json says what the text is, or why it is not JSON', () => {
    expect(score({ type: 'is_json' }, out('{"a":1}'))).toEqual({
      score: 1,
      reason: 'guard: actual_output is JSON (an object with 1 key)',
    });
    expect(score({ type: 'is_json' }, out('{"a":1,}'))).toEqual({
      score: 0,
      reason:
        'guard: actual_output is not JSON: unexpected "}" at character 8 (expected a double-quoted property name)',
    });
    expect(score({ type: 'is_json', target: 'input' }, { input: '' })).toEqual({
      score: 0,
      reason: 'guard: input is not JSON: it is empty',
    });
  });

  it('json_schema (draft 2020-12) names the failing place and rule', () => {
    const check: Check = {
      type: 'json_schema',
      schema: {
        type: 'object',
        required: ['price'],
        properties: { price: { type: 'number' }, items: { type: 'array', prefixItems: [{ type: 'string' }] } },
        additionalProperties: false,
      },
    };
    expect(score(check, out('{"price": 3, "items": ["a"]}'))).toEqual({
      score: 1,
      reason: 'guard: actual_output is JSON that matches the schema',
    });
    expect(score(check, out('{"items": ["a"]}'))).toEqual({
      score: 0,
      reason: "guard: actual_output does not match the schema at the top level: must have required property 'price'",
    });
    expect(score(check, out('{"price": 3, "items": [4]}'))).toEqual({
      score: 0,
      reason: 'guard: actual_output does not match the schema at "/items/0": must be string',
    });
    expect(score(check, out('{"price": 3, "extra": 1}'))).toEqual({
      score: 0,
      reason:
        'guard: actual_output does not match the schema at the top level: must NOT have additional properties ("extra")',
    });
    expect(score(check, out('price: 3'))).toEqual({
      score: 0,
      reason: 'guard: actual_output is not JSON: unexpected "p" at character 1 (expected a JSON value)',
    });
    expect(
      score({ type: 'json_schema', schema: { type: 'string', format: 'email' } }, out('"not an address"')),
    ).toMatchObject({ score: 0, reason: expect.stringContaining('must match format "email"') });
    expect(score({ type: 'json_schema', schema: true }, out('[1]'))).toMatchObject({ score: 1 });
  });

  it('compiles user schemas without keeping them: two schemas with one $id each validate with their own rules', () => {
    const a = compileUserSchema({ $id: 'https://example.com/s', type: 'string' }, 'check.schema');
    const b = compileUserSchema({ $id: 'https://example.com/s', type: 'number' }, 'check.schema');
    expect([a('x'), a(1), b('x'), b(1)]).toEqual([true, false, false, true]);
    for (let i = 0; i < 300; i++)
      expect(compileUserSchema({ $id: `https://example.com/${i % 3}`, const: i }, 'check.schema')(i)).toBe(true);
  });
});

describe('length checks', () => {
  it('counts code points, bounds inclusive', () => {
    expect(score({ type: 'length', min: 3, max: 5 }, out('abc'))).toEqual({
      score: 1,
      reason: 'guard: actual_output has 3 characters (allowed: 3 to 5)',
    });
    expect(score({ type: 'length', min: 3, max: 5 }, out('abcde'))).toMatchObject({ score: 1 });
    expect(score({ type: 'length', min: 3, max: 5 }, out('ab'))).toEqual({
      score: 0,
      reason: 'guard: actual_output has 2 characters, fewer than the minimum 3',
    });
    expect(score({ type: 'length', max: 5 }, out('abcdef'))).toEqual({
      score: 0,
      reason: 'guard: actual_output has 6 characters, more than the maximum 5',
    });
    expect(score({ type: 'length', min: 1 }, out('x'))).toEqual({
      score: 1,
      reason: 'guard: actual_output has 1 character (allowed: at least 1)',
    });
    expect(score({ type: 'length', max: 0 }, out(''))).toEqual({
      score: 1,
      reason: 'guard: actual_output has 0 characters (allowed: at most 0)',
    });
  });

  it('unicode: an emoji is one code point, a combining mark is its own, a ZWJ family several', () => {
    expect(score({ type: 'length', max: 1 }, out('😀'))).toMatchObject({ score: 1 }); // 2 UTF-16 units, 1 code point
    expect(score({ type: 'length', max: 1 }, out('é'))).toMatchObject({ score: 1 }); // precomposed U+00E9
    expect(score({ type: 'length', max: 1 }, out('e\u0301'))).toMatchObject({
      score: 0,
      reason: 'guard: actual_output has 2 characters, more than the maximum 1',
    });
    expect(score({ type: 'length', min: 5, max: 5 }, out('👨‍👩‍👧'))).toMatchObject({ score: 1 }); // man ZWJ woman ZWJ girl
  });
});

describe('unicode in text checks and regex', () => {
  it('compares NFC text: a precomposed é matches e + combining acute, both ways', () => {
    expect(score({ type: 'contains', value: 'café' }, out('un cafe\u0301 noir'))).toMatchObject({
      score: 1,
      reason: expect.stringContaining('at character 4'),
    });
    expect(score({ type: 'contains', value: 'cafe\u0301' }, out('un café noir'))).toMatchObject({ score: 1 });
    expect(score({ type: 'equals', value: 'Ångström' }, out('A\u030Angstro\u0308m'))).toMatchObject({ score: 1 });
    expect(score({ type: 'regex', value: '^caf.$' }, out('cafe\u0301'))).toMatchObject({ score: 1 });
  });

  it('counts positions in code points past emoji, and folds case beyond ASCII', () => {
    expect(score({ type: 'contains', value: 'ok' }, out('👍🏽👍 ok'))).toMatchObject({
      reason: expect.stringContaining('at character 5'),
    });
    expect(score({ type: 'regex', value: '^.{3}$' }, out('😀😀😀'))).toMatchObject({ score: 1 });
    expect(score({ type: 'contains', value: 'ÉTÉ', caseSensitive: false }, out('un été chaud'))).toMatchObject({
      score: 1,
    });
    expect(score({ type: 'contains', value: 'ΟΔΟΣ', caseSensitive: false }, out('η οδος'))).toMatchObject({ score: 1 }); // final sigma
    expect(score({ type: 'contains', value: 'straße', caseSensitive: false }, out('Die STRAẞE'))).toMatchObject({
      score: 1,
    });
    expect(score({ type: 'contains', value: 'x', caseSensitive: false }, out('İİ x'))).toMatchObject({
      reason: expect.stringContaining('at character 4'),
    });
    expect(foldCase('İa').length).toBe(2);
  });
});

describe('targets', () => {
  const params = {
    input: 'How do I get a refund?',
    actual_output: 'Sure.',
    expected_output: 'Explain the refund policy.',
    retrieval_context: ['Shipping takes 3 days.', 'The refund policy: 30 days.'],
  };
  it('reads the target it names; evaluationParams is exactly that target', () => {
    expect(score({ type: 'contains', value: 'refund' }, params)).toMatchObject({ score: 0 });
    expect(score({ type: 'contains', value: 'refund', target: 'input' }, params)).toEqual({
      score: 1,
      reason: 'guard: found "refund" in input at character 16: "How do I get a refund?"',
    });
    expect(score({ type: 'contains', value: 'refund', target: 'expected_output' }, params)).toMatchObject({
      score: 1,
      reason: expect.stringContaining('in expected_output at character 13'),
    });
    for (const target of ['actual_output', 'input', 'expected_output', 'retrieval_context'] as const) {
      expect(scoringOf({ check: { type: 'is_json', target } })).toEqual({
        check: { type: 'is_json', target },
        evaluationParams: [target],
      });
    }
    expect(scoringOf({ check: { type: 'is_json' } }).evaluationParams).toEqual(['actual_output']);
  });

  it('retrieval_context is its chunks joined by a blank line; a position names the chunk', () => {
    expect(score({ type: 'contains', value: 'refund policy', target: 'retrieval_context' }, params)).toMatchObject({
      score: 1,
      reason: expect.stringContaining('in retrieval_context[1] at character 5'),
    });
    expect(
      score({ type: 'contains_all', values: ['Shipping', '30 days'], target: 'retrieval_context' }, params).reason,
    ).toBe(
      'guard: all 2 values appear in retrieval_context: "Shipping" in retrieval_context[0] at character 1, "30 days" in retrieval_context[1] at character 20',
    );
    expect(score({ type: 'length', max: 51, target: 'retrieval_context' }, params)).toMatchObject({ score: 1 }); // 22 + 2 + 27
    expect(
      score({ type: 'not_contains', value: 'refund', target: 'retrieval_context' }, { retrieval_context: [] }),
    ).toMatchObject({ score: 1 });
  });

  it('an absent target fails the evaluation with what is missing; an object input is read as JSON', () => {
    expect(() => score({ type: 'contains', value: 'x' }, { input: 'q' })).toThrow(
      new MetricInputError('actual_output is missing'),
    );
    expect(() => score({ type: 'contains', value: 'x', target: 'expected_output' }, {})).toThrow(
      'expected_output is missing',
    );
    expect(
      score(
        { type: 'json_schema', target: 'input', schema: { required: ['user_message'] } },
        { input: { user_message: 'hi' } },
      ),
    ).toMatchObject({ score: 1 });
  });
});

describe('check validation', () => {
  const refused = (check: unknown) => {
    try {
      normaliseCheck(check as Check);
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationError);
      return (error as Error).message;
    }
    throw new Error(`accepted ${JSON.stringify(check)}`);
  };
  it.each([
    [{ type: 'contains' }, 'check.value is required when check.type is contains'],
    [{ type: 'regex' }, 'check.value is required when check.type is regex'],
    [{ type: 'contains_any' }, 'check.values is required when check.type is contains_any'],
    [{ type: 'json_schema' }, 'check.schema is required when check.type is json_schema'],
    [{ type: 'length' }, 'check.min or check.max is required when check.type is length'],
    [{ type: 'length', min: 5, max: 4 }, 'check.min must not be greater than check.max (5 > 4)'],
    [{ type: 'contains', value: 'a', values: ['b'] }, 'check.values must not be set when check.type is contains'],
    [
      { type: 'contains_all', values: ['a'], value: 'b' },
      'check.value must not be set when check.type is contains_all',
    ],
    [{ type: 'is_json', caseSensitive: false }, 'check.caseSensitive must not be set when check.type is is_json'],
    [{ type: 'length', min: 1, schema: {} }, 'check.schema must not be set when check.type is length'],
    [{ type: 'json_schema', schema: {}, min: 1 }, 'check.min must not be set when check.type is json_schema'],
    [
      { type: 'regex', value: '(' },
      /^check\.value is not a valid ECMAScript regular expression \(u flag\): Invalid regular expression: \/\(\/u: Unterminated group/,
    ],
    [{ type: 'regex', value: '[b-a]' }, /^check\.value is not a valid ECMAScript regular expression/],
    [{ type: 'regex', value: 'a{2,1}' }, /^check\.value is not a valid ECMAScript regular expression/],
    [
      { type: 'regex', value: 'a'.repeat(1001) },
      'check.value must have at most 1000 characters as a regular expression',
    ],
    [
      { type: 'json_schema', schema: { type: 'strin' } },
      /^check\.schema is not a valid JSON Schema \(draft 2020-12\): check\.schema\.type must be one of: array, boolean, integer, null, number, object, string/,
    ],
    [
      { type: 'json_schema', schema: { properties: { a: { minLength: -1 } } } },
      /^check\.schema is not a valid JSON Schema \(draft 2020-12\): check\.schema\.properties\.a\.minLength must be at least 0/,
    ],
    [
      { type: 'json_schema', schema: { $schema: 'http://json-schema.org/draft-07/schema#' } },
      'check.schema.$schema must be "https://json-schema.org/draft/2020-12/schema" (draft 2020-12) or absent',
    ],
    [
      { type: 'json_schema', schema: { $ref: 'https://example.com/elsewhere.json' } },
      /^check\.schema is not a valid JSON Schema \(draft 2020-12\): can't resolve reference/,
    ],
    [
      { type: 'json_schema', schema: { properties: { sku: { pattern: '(a+)+$' } } } },
      /^check\.schema\.properties\.sku\.pattern can backtrack catastrophically/,
    ],
    [
      { type: 'json_schema', schema: { patternProperties: { '(x|x)*y': {} } } },
      /^check\.schema\.patternProperties key "\(x\|x\)\*y" can backtrack catastrophically/,
    ],
  ])('%j → 400: %s', (check, message) => {
    const m = refused(check);
    if (typeof message === 'string') expect(m).toBe(message);
    else expect(m).toMatch(message);
  });

  it('stores the target and caseSensitive where they apply', () => {
    expect(normaliseCheck({ type: 'contains', value: 'a' })).toEqual({
      type: 'contains',
      target: 'actual_output',
      value: 'a',
      caseSensitive: true,
    });
    expect(normaliseCheck({ type: 'length', min: 0, target: 'input' })).toEqual({
      type: 'length',
      target: 'input',
      min: 0,
    });
    expect(normaliseCheck({ type: 'contains_all', values: ['a', 'b'], caseSensitive: false })).toEqual({
      type: 'contains_all',
      target: 'actual_output',
      values: ['a', 'b'],
      caseSensitive: false,
    });
  });

  it('evaluationParams comes from the target: sending it with a check is refused, and it is required without one', () => {
    expect(() => scoringOf({ check: { type: 'is_json' }, evaluationParams: ['actual_output'] })).toThrow(
      'evaluationParams must not be set with a check: it is derived from check.target',
    );
    expect(() => scoringOf({})).toThrow('evaluationParams is required');
    expect(scoringOf({ evaluationParams: ['input'] })).toEqual({ check: null, evaluationParams: ['input'] });
  });

  it('finds every pattern of a schema, where it is', () => {
    const schema = {
      properties: { a: { pattern: 'x' }, 'odd key': { items: { pattern: 'y' } } },
      anyOf: [{ pattern: 'z' }],
      $defs: { d: { patternProperties: { '^k': {} } } },
    };
    expect(schemaPatterns(schema, 'check.schema')).toEqual([
      { pattern: 'z', at: 'check.schema.anyOf[0].pattern' },
      { pattern: 'x', at: 'check.schema.properties.a.pattern' },
      { pattern: 'y', at: 'check.schema.properties["odd key"].items.pattern' },
      { pattern: '^k', at: 'check.schema.$defs.d.patternProperties key "^k"' },
    ]);
  });
});

describe('catastrophic backtracking', () => {
  it.each([
    '(a+)+$',
    '(a|a)*b',
    '(.*a){20}',
    '(\\w+\\s?)*$',
    '([a-zA-Z]+)*$',
    '^(a+)+$',
    '(a|aa)+$',
    '(x+x+)+y',
    '^(\\d+)*$',
    '(.*,)*x',
    '^(\\s*\\w+\\s*)+$',
    '(?<n>a+)+\\k<n>$',
  ])('refuses %s with a 400 naming check.value', (pattern) => {
    expect(() => normaliseCheck({ type: 'regex', value: pattern })).toThrow(
      /^check\.value can backtrack catastrophically/,
    );
  });

  it('refuses a flat pattern with more than three unbounded repetitions (the analysis decides)', () => {
    expect(flatness('.*.*.*=.*')).toEqual({ flat: true, unbounded: 4 });
    expect(() => normaliseCheck({ type: 'regex', value: '.*.*.*=.*' })).toThrow(
      /^check\.value can backtrack catastrophically/,
    );
  });

  it('tells flat patterns from repeated repetitions, alternations and backreferences', () => {
    expect(flatness('^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$')).toEqual({ flat: true, unbounded: 3 });
    expect(flatness('(?:ab)+c{2,5}(x|y)?')).toEqual({ flat: true, unbounded: 1 });
    expect(flatness('(a+)+$')?.flat).toBe(false);
    expect(flatness('(a|a)*b')?.flat).toBe(false);
    expect(flatness('(.*a){20}')?.flat).toBe(false);
    expect(flatness('(?<n>a)(?:\\k<n>)+')?.flat).toBe(false);
    expect(flatness('(')).toBeUndefined();
  });

  it('refuses a pattern that is catastrophic only once case is ignored', () => {
    expect(catastrophicBacktracking('(a|A)+$', true)).toBeUndefined();
    expect(catastrophicBacktracking('(a|A)+$', false)).toMatch(/^can backtrack catastrophically/);
  });

  it.each([
    '^\\d{3}-\\d{4}$',
    'refund policy',
    '\\b(?:refund|return)s? policy\\b',
    '\\b(?:refund|return|exchange|warranty|shipping|delivery|invoice|receipt|cancel|subscription|account|password|billing|payment|credit|debit|order|tracking|support|agent)\\b',
    "I (?:cannot|can't|am unable to) (?:help|assist)",
    'https?://[^\\s]+',
    '^[A-Z][a-z]+(?: [A-Z][a-z]+)*$',
    '(?<year>\\d{4})-(?<month>\\d{2})-\\k<month>',
    '(?<=total: )\\d+',
    '\\p{Lu}\\p{Ll}+',
    '[😀-😂]',
    // Flat patterns (no repeated part holds a repetition, an alternation or a backreference) with at
    // most three unbounded repetitions: polynomial at worst, bounded by the time budget.
    '^.*refund.*$',
    'a.*b.*c',
    '^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$',
    '^[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\\.[A-Za-z]{2,}$',
    '^\\s*\\{[\\s\\S]*\\}\\s*$',
  ])('accepts %s', (pattern) => {
    expect(normaliseCheck({ type: 'regex', value: pattern })).toMatchObject({ type: 'regex', value: pattern });
    expect(normaliseCheck({ type: 'regex', value: pattern, caseSensitive: false })).toMatchObject({
      caseSensitive: false,
    });
  });

  it('reads named groups as numbered ones for the analysis', () => {
    expect(withoutGroupNames('(?<a>x)(y)(?<b>z)\\k<b>\\k<a>[(?<c>]')).toBe('(x)(y)(z)(?:\\3)(?:\\1)[(?<c>]');
    expect(withoutGroupNames('(?:a)(?=b)(?<=c)(?<!d)\\(')).toBe('(?:a)(?=b)(?<=c)(?<!d)\\(');
  });
});

describe('time budget', () => {
  const big = 250_000;
  const adversarial: [string, Check, string][] = [
    ['quadratic regex on digits', { type: 'regex', value: '\\d+x' }, '1'.repeat(big)],
    ['quadratic regex, word then digit', { type: 'regex', value: '\\w+\\d!' }, 'foo1'.repeat(big / 4)],
    ['lazy alternation', { type: 'regex', value: '(?:a|b)*?c' }, 'ab'.repeat(big / 2)],
    ['case-insensitive regex', { type: 'regex', value: '[a-z]+\\d', caseSensitive: false }, 'A'.repeat(big)],
    ['long near-miss value', { type: 'contains', value: `${'a'.repeat(999)}b` }, 'a'.repeat(big)],
    [
      'long near-miss value, ignoring case',
      { type: 'contains', value: `${'A'.repeat(999)}b`, caseSensitive: false },
      'a'.repeat(big),
    ],
    [
      '100 near-miss values',
      { type: 'contains_all', values: Array.from({ length: 100 }, (_, i) => `${'a'.repeat(990)}${i}`) },
      'a'.repeat(big),
    ],
    ['equals on long texts', { type: 'equals', value: 'a'.repeat(10_000) }, `${'a'.repeat(big - 1)}b`],
    [
      'deep JSON',
      { type: 'json_schema', schema: { type: 'array', uniqueItems: true, items: { type: 'array' } } },
      JSON.stringify(Array.from({ length: 20_000 }, (_, i) => [i % 7])),
    ],
    ['length of emoji', { type: 'length', max: 10 }, '😀'.repeat(big / 2)],
    [
      'flat regex with three unbounded repetitions',
      { type: 'regex', value: '^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$' },
      `${'a@'.repeat(big / 2)}`,
    ],
    ['cubic flat regex', { type: 'regex', value: 'a.*b.*c' }, 'ab'.repeat(big / 2)],
  ];
  // The bound is on the evaluation's own work: its thread's CPU time (the wall time of a machine this
  // busy also counts the time others had the CPU).
  const threadMs = () => {
    const u = process.threadCpuUsage();
    return (u.user + u.system) / 1000;
  };
  it.each(adversarial)('%s on a 250,000-character text takes at most 100 ms, finished or stopped', (_, check, text) => {
    const prepared = normaliseCheck(check);
    const cpuAtStart = threadMs();
    let outcome: string;
    try {
      outcome = `score ${scoreCheck('guard', prepared, out(text)).score}`;
    } catch (error) {
      expect(error).toBeInstanceOf(MetricInputError);
      expect((error as Error).message).toBe(
        `the check was stopped: it took longer than its ${CHECK_TIME_BUDGET_MS} ms time budget on actual_output`,
      );
      outcome = 'stopped';
    }
    const cpu = threadMs() - cpuAtStart;
    expect(cpu, `${outcome} after ${cpu.toFixed(1)} ms of CPU`).toBeLessThan(100);
  });

  it('finishes linear checks on 250,000 characters well within the budget', () => {
    const digits = '7'.repeat(big);
    expect(score({ type: 'regex', value: '^\\d+$' }, out(digits))).toMatchObject({
      score: 1,
      reason: expect.stringMatching(/^guard: \/\^\\d\+\$\/u matched "7{57}…" in actual_output at character 1$/),
    });
    expect(score({ type: 'contains', value: '78' }, out(`${digits}8`))).toMatchObject({
      score: 1,
      reason: expect.stringContaining(`at character ${big}`),
    });
    expect(score({ type: 'length', min: big, max: big }, out(digits))).toMatchObject({ score: 1 });
    expect(score({ type: 'is_json' }, out(digits))).toMatchObject({ score: 1 });
  });

  it('stops any work past the budget, and passes errors through', () => {
    expect(withinTimeBudget(() => 42, 50)).toEqual({ done: true, value: 42 });
    const run = vi.spyOn(vm.Script.prototype, 'runInContext');
    try {
      expect(
        withinTimeBudget(() => {
          for (;;);
        }, 20),
      ).toEqual({ done: false });
      // Stopped by the vm's watchdog after the whole budget, not before: every attempt (a starved
      // one runs again, at most three more times) ran under the 20 ms.
      expect(run.mock.calls.length).toBeGreaterThanOrEqual(1);
      expect(run.mock.calls.length).toBeLessThanOrEqual(4);
      for (const [, options] of run.mock.calls) expect(options).toEqual({ timeout: 20 });
    } finally {
      run.mockRestore();
    }
    expect(() =>
      withinTimeBudget(() => {
        throw new MetricInputError('nope');
      }, 20),
    ).toThrow('nope');
  });
});
