import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bleu,
  DETERMINISTIC_METRICS,
  hasCardNumber,
  iou,
  isJson,
  jsonFieldMatch,
  levenshtein,
  luhnValid,
  noPii,
  nonEmptyOutput,
  rougeL,
  spatialMatch,
  textMatch,
  textSimilarity,
  toolCorrectness,
} from '../../shared/domain/evaluation/deterministic.js';
import { jsonSyntaxError } from '../../shared/domain/evaluation/reason-text.js';
import { predefinedMetrics } from '../../shared/domain/metrics/predefined/seed.js';

describe('text similarity', () => {
  it('is 1 − Levenshtein / longer length, on code points', () => {
    expect(levenshtein('kitten', 'sitting')).toBe(3);
    expect(textSimilarity('kitten', 'sitting')).toBeCloseTo(1 - 3 / 7, 12);
    expect(textSimilarity('', '')).toBe(1);
    expect(textSimilarity('abc', '')).toBe(0);
    expect(levenshtein('café', 'cafe')).toBe(1);
    expect(levenshtein('👍🏽ok', '👍ok')).toBe(1); // the skin-tone modifier is one code point
  });
  it('text_match is 1 above 0.85', () => {
    expect(textMatch('hello world', 'hello world!')).toBe(1); // 1 − 1/12 = 0.9167
    expect(textMatch('kitten', 'sitting')).toBe(0);
    expect(textMatch('abcdefghij', 'abcdefghiX')).toBe(1); // 0.9
    expect(textMatch('abcdefg', 'abcdefX')).toBe(1); // 1 − 1/7 = 0.857 > 0.85
    expect(textMatch('abcdef', 'abcdeX')).toBe(0); // 1 − 1/6 = 0.833
  });
});

describe('json field match', () => {
  it('counts differing expected top-level keys, deep and type-strict', () => {
    expect(jsonFieldMatch('{"a":1,"b":{"c":[1,2]},"x":9}', '{"a":1,"b":{"c":[1,2]}}')).toBe(1);
    expect(jsonFieldMatch('{"a":"1","b":2}', '{"a":1,"b":2}')).toBe(0.5);
    expect(jsonFieldMatch('{"b":{"c":[2,1]}}', '{"a":1,"b":{"c":[1,2]}}')).toBe(0);
    expect(jsonFieldMatch('{"a":1}', '{}')).toBe(1);
    expect(jsonFieldMatch('{"name":"José","city":"Zürich"}', '{"name":"jose","city":"ZURICH"}')).toBe(0);
    expect(jsonFieldMatch('{"name":"José","city":"Zürich"}', '{"name":"jose","city":"ZURICH"}', true)).toBe(1);
  });
  it('fails on invalid JSON with the parse error, and on non-objects', () => {
    expect(() => jsonFieldMatch('{oops', '{}')).toThrow(/^actual_output is not valid JSON/);
    expect(() => jsonFieldMatch('{}', '[1]')).toThrow('expected_output must be a JSON object');
  });
});

describe('boxes', () => {
  it('takes the best IoU over all pairs', () => {
    expect(iou('[0,0,2,2]', '[1,1,3,3]')).toBeCloseTo(1 / 7, 12); // intersection 1, union 4 + 4 − 1
    expect(iou('[[10,10,11,11],[0,0,2,2]]', '[[0,0,2,2]]')).toBe(1);
    expect(iou('[0,0,1,1]', '[5,5,6,6]')).toBe(0); // no overlap
    expect(spatialMatch('[0,0,2,2]', '[0,0,2,1]')).toBe(1); // IoU 0.5
    expect(spatialMatch('[0,0,2,2]', '[1,1,3,3]')).toBe(0);
    expect(() => iou('[0,0,1]', '[0,0,1,1]')).toThrow(/must be a box/);
  });
});

describe('tool correctness', () => {
  it('compares sets of normalised tool names', () => {
    expect(toolCorrectness(['Search Orders', 'refund'], ['refund', 'search-orders', 'REFUND'])).toBe(1);
    expect(toolCorrectness(['search_orders'], ['search_orders', 'refund'])).toBe(0);
    expect(toolCorrectness([], [])).toBe(1);
  });
});

describe('BLEU-4 (Papineni et al. 2002: clipped n-gram precision, uniform weights, brevity penalty)', () => {
  it('is 1 for identical sentences and 0 without a shared 4-gram', () => {
    expect(bleu('the cat sat on the mat', 'the cat sat on the mat')).toBeCloseTo(1, 12);
    expect(bleu('the cat sat on the mat', 'the cat is on the mat')).toBe(0);
    expect(bleu('', 'x')).toBe(0);
  });
  it('matches a hand computation', () => {
    // candidate 8 words, reference 9: p1 = 8/8, p2 = 6/7, p3 = 5/6, p4 = 4/5; BP = e^(1 − 9/8)
    const expected = Math.exp(1 - 9 / 8) * ((8 / 8) * (6 / 7) * (5 / 6) * (4 / 5)) ** (1 / 4);
    const score = bleu('the quick brown fox jumps over the dog', 'the quick brown fox jumps over the lazy dog');
    expect(score).toBeCloseTo(expected, 12);
    expect(score).toBeCloseTo(0.7673, 4);
  });
});

describe('ROUGE-L F1 (Lin 2004, words)', () => {
  it('matches the paper’s example and hand computations', () => {
    expect(rougeL('police kill the gunman', 'police killed the gunman')).toBeCloseTo(0.75, 12);
    expect(rougeL('the gunman kill police', 'police killed the gunman')).toBeCloseTo(0.5, 12);
    expect(rougeL('the cat sat on the mat', 'the cat is on the mat')).toBeCloseTo(5 / 6, 12);
    expect(rougeL('a b', 'c d')).toBe(0);
  });
});

describe('reference-free metrics', () => {
  it('is_json, non_empty_output', () => {
    expect(isJson('{"a":1}')).toBe(1);
    expect(isJson('"text"')).toBe(1);
    expect(isJson('nope')).toBe(0);
    expect(nonEmptyOutput('  \n')).toBe(0);
    expect(nonEmptyOutput(' x ')).toBe(1);
  });
  it('no_pii finds e-mails, phone numbers and Luhn-valid cards only', () => {
    expect(luhnValid('4111111111111111')).toBe(true);
    expect(luhnValid('4111111111111112')).toBe(false);
    expect(hasCardNumber('card 4111 1111 1111 1111 ok')).toBe(true);
    expect(noPii('Your order 4111111111111112 shipped')).toBe(1);
    expect(noPii('write to jane.doe@example.com')).toBe(0);
    expect(noPii('call +1 415-555-0123 now')).toBe(0);
    expect(noPii('call (415) 555-0123')).toBe(0);
    expect(noPii('Order 12345 ships in 3 days.')).toBe(1);
    expect(noPii('pay with 4111-1111-1111-1111')).toBe(0);
  });
});

it('implements every deterministic predefined metric', () => {
  const names = predefinedMetrics()
    .filter((m) => m.source === 'DETERMINISTIC')
    .map((m) => m.name);
  expect(Object.keys(DETERMINISTIC_METRICS).sort()).toEqual(names.sort());
});

describe('reasons name what was found and where', () => {
  const reason = (name: string, p: Record<string, unknown>) => DETERMINISTIC_METRICS[name]!(p).reason;
  const PHONE = '+1 415-555-0123';
  const EMAIL = 'jane.doe@example.com';
  const CARD = '4111 1111 1111 1111';

  it('text_similarity and text_match give the distance, the length and the first difference', () => {
    expect(reason('text_similarity', { actual_output: 'kitten', expected_output: 'sitting' })).toBe(
      'text_similarity: 0.571 (Levenshtein distance 3 over 7 characters); first difference at character 1: expected "sitting", got "kitten"',
    );
    expect(reason('text_similarity', { actual_output: 'same', expected_output: 'same' })).toBe(
      'text_similarity: 1 (actual_output equals expected_output, 4 characters)',
    );
    expect(reason('text_match', { actual_output: 'hello world', expected_output: 'hello world!' })).toBe(
      'text_match: similarity 0.917 > 0.85 (Levenshtein distance 1 over 12 characters); first difference at character 12: expected "hello world!", got "hello world"',
    );
    expect(reason('text_match', { actual_output: 'abcdef', expected_output: 'abcdeX' })).toMatch(
      /^text_match: similarity 0\.833 ≤ 0\.85 .*character 6/,
    );
    const long = reason('text_similarity', {
      actual_output: `${'a'.repeat(100)}X${'b'.repeat(100)}`,
      expected_output: `${'a'.repeat(100)}Y${'b'.repeat(100)}`,
    });
    expect(long).toContain('first difference at character 101: expected "…aaaaaaaaaaaaaaaaaaaaYbbbbbbbbbbbbbbbbbbb…"');
  });

  it('json_field_match lists the differing keys with expected and actual values, nested paths and missing keys', () => {
    expect(
      reason('json_field_match', {
        actual_output: '{"total":"12","items":[1,2],"meta":{"a":{"b":3}},"x":1}',
        expected_output: '{"total":12,"currency":"EUR","items":[1,2],"meta":{"a":{"b":4}},"ok":true}',
      }),
    ).toBe(
      'json_field_match: 4 of 5 expected keys differ: "total" (expected 12, got "12"), "currency" (missing), "meta" (at meta.a.b: expected 4, got 3), "ok" (missing)',
    );
    expect(reason('json_field_match', { actual_output: '{"a":[1,2,3]}', expected_output: '{"a":[1,2]}' })).toBe(
      'json_field_match: 1 of 1 expected key differs: "a" (expected 2 items, got 3)',
    );
    expect(reason('json_field_match', { actual_output: '{"a":1,"b":2}', expected_output: '{"a":1,"b":2}' })).toBe(
      'json_field_match: all 2 expected keys match',
    );
    expect(reason('json_field_match', { actual_output: '{"a":1}', expected_output: '{}' })).toBe(
      'json_field_match: expected_output is {}: no key to compare',
    );
    expect(
      reason('json_field_match_normalized', {
        actual_output: '{"city":"Zürich"}',
        expected_output: '{"city":"ZURICH"}',
      }),
    ).toBe(
      'json_field_match_normalized: the expected key "city" matches (strings compared case- and accent-insensitively)',
    );
    expect(() => DETERMINISTIC_METRICS.json_field_match!({ actual_output: '{"a":1,}', expected_output: '{}' })).toThrow(
      'actual_output is not valid JSON: unexpected "}" at character 8 (expected a double-quoted property name)',
    );
  });

  it('iou and spatial_match name the best pair of boxes', () => {
    expect(reason('iou', { actual_output: '[[10,10,11,11],[0,0,2,2]]', expected_output: '[1,1,3,3]' })).toBe(
      'iou: 0.143 (best pair: actual_output box 2 [0,0,2,2] and expected_output [1,1,3,3]; 2 actual and 1 expected boxes)',
    );
    expect(reason('iou', { actual_output: '[0,0,1,1]', expected_output: '[5,5,6,6]' })).toBe(
      'iou: 0 (no actual_output box overlaps the expected_output box)',
    );
    expect(reason('spatial_match', { actual_output: '[0,0,2,2]', expected_output: '[0,0,2,1]' })).toBe(
      'spatial_match: best IoU 0.5 ≥ 0.5 (actual_output [0,0,2,2] and expected_output [0,0,2,1])',
    );
    expect(reason('spatial_match', { actual_output: '[0,0,2,2]', expected_output: '[1,1,3,3]' })).toMatch(
      /^spatial_match: best IoU 0\.143 < 0\.5/,
    );
  });

  it('tool_correctness names missing and unexpected tools', () => {
    expect(
      reason('tool_correctness', {
        tools_used: ['Search Orders', 'delete_account'],
        expected_tools: ['search-orders', 'search'],
      }),
    ).toBe('tool_correctness: missing tool "search"; unexpected tool "delete_account"');
    expect(reason('tool_correctness', { tools_used: [], expected_tools: ['search', 'refund'] })).toBe(
      'tool_correctness: missing tools "search", "refund" (no tool was used)',
    );
    expect(reason('tool_correctness', { tools_used: ['refund'], expected_tools: ['Refund'] })).toBe(
      'tool_correctness: used exactly the expected tools: "Refund"',
    );
    expect(reason('tool_correctness', { expected_tools: [] })).toBe('tool_correctness: no tool expected and none used');
  });

  it('bleu and rouge give their counts and the expected words the output lacks', () => {
    expect(
      reason('bleu', {
        actual_output: 'the quick brown fox jumps over the dog',
        expected_output: 'the quick brown fox jumps over the lazy dog',
      }),
    ).toBe(
      'bleu: 0.767 (clipped n-gram precision 8/8, 6/7, 5/6, 4/5 for n = 1–4; brevity penalty 0.882: 8 words against 9 in expected_output); expected words missing from actual_output: "lazy"',
    );
    expect(reason('bleu', { actual_output: 'the cat sat on the mat', expected_output: 'the cat is on the mat' })).toBe(
      'bleu: 0 (no shared 4-gram: clipped n-gram precision 5/6, 3/5, 1/4, 0/3 for n = 1–4); expected words missing from actual_output: "is"',
    );
    expect(reason('bleu', { actual_output: '', expected_output: 'x' })).toBe('bleu: 0 (actual_output has no words)');
    expect(
      reason('rouge', { actual_output: 'police kill the gunman', expected_output: 'police killed the gunman' }),
    ).toBe(
      'rouge: 0.75 (longest common word subsequence 3; precision 3/4, recall 3/4); expected words missing from actual_output: "killed"',
    );
    expect(reason('rouge', { actual_output: 'a b', expected_output: 'c d' })).toBe(
      'rouge: 0 (no word in common: 2 words against 2 in expected_output); expected words missing from actual_output: "c", "d"',
    );
  });

  it('is_json says what the JSON is, or where parsing stopped and what was expected', () => {
    expect(reason('is_json', { actual_output: '{"a":1,"b":2}' })).toBe(
      'is_json: actual_output is JSON (an object with 2 keys)',
    );
    expect(reason('is_json', { actual_output: '"text"' })).toBe('is_json: actual_output is JSON (a string)');
    expect(reason('is_json', { actual_output: 'Sure, here it is' })).toBe(
      'is_json: actual_output is not JSON: unexpected "S" at character 1 (expected a JSON value)',
    );
    expect(reason('is_json', { actual_output: '{"a":1} x' })).toBe(
      'is_json: actual_output is not JSON: unexpected "x" at character 9 (expected nothing after the JSON value)',
    );
    expect(reason('is_json', { actual_output: '[1,2' })).toBe(
      'is_json: actual_output is not JSON: unexpected end of input at character 5 (expected "," or "]")',
    );
    expect(reason('is_json', { actual_output: ' ' })).toBe('is_json: actual_output is not JSON: it is only whitespace');
  });

  it('non_empty_output counts characters', () => {
    expect(reason('non_empty_output', {})).toBe('non_empty_output: actual_output is empty');
    expect(reason('non_empty_output', { actual_output: ' \n ' })).toBe(
      'non_empty_output: actual_output is only whitespace (3 characters)',
    );
    expect(reason('non_empty_output', { actual_output: 'Hi 👋' })).toBe(
      'non_empty_output: actual_output has 4 characters',
    );
  });

  it('no_pii names the kind, the position and a masked value', () => {
    const text = `Please call our support line, they will help: ${PHONE}.`;
    expect(reason('no_pii', { actual_output: text })).toBe(
      'no_pii: found a phone number in actual_output at character 47 ("+1 •••-•••-••23")',
    );
    expect(reason('no_pii', { actual_output: `write to ${EMAIL}` })).toBe(
      'no_pii: found an e-mail address in actual_output at character 10 ("ja••.•••@•••••••.•om")',
    );
    expect(
      reason('no_pii', { actual_output: `Mail ${EMAIL}, call ${PHONE}, pay with ${CARD}, or a@b.io and c@d.io` }),
    ).toBe(
      'no_pii: found 5 pieces of personal data in actual_output: an e-mail address at character 6 ("ja••.•••@•••••••.•om"), a phone number at character 33 ("+1 •••-•••-••23"), a card number at character 59 ("41•• •••• •••• ••11") and 2 more',
    );
    expect(reason('no_pii', { actual_output: 'Order 12345 ships in 3 days.' })).toBe(
      'no_pii: no e-mail address, phone number or card number in actual_output',
    );
  });

  it('never shows a whole phone number, e-mail address, card number or token, whatever the metric', () => {
    const secrets = [PHONE, EMAIL, CARD, '4111111111111111', 'sk_live_51HxYz9876543210abcdef'];
    const texts = secrets.map((s) => `Contact: ${s} (kept on file)`);
    const reasons = texts.flatMap((t) => [
      reason('no_pii', { actual_output: t }),
      reason('text_similarity', { actual_output: t, expected_output: 'Contact: support (kept on file)' }),
      reason('text_match', { actual_output: 'Contact: support', expected_output: t }),
      reason('bleu', { actual_output: 'Contact: support', expected_output: t }),
      reason('rouge', { actual_output: 'Contact: support', expected_output: t }),
      reason('json_field_match', {
        actual_output: JSON.stringify({ contact: t }),
        expected_output: JSON.stringify({ contact: 'support' }),
      }),
      reason('tool_correctness', { tools_used: [t], expected_tools: [] }),
    ]);
    for (const r of reasons) for (const s of secrets) expect(r).not.toContain(s);
    for (const digits of ['4155550123', '4111111111111111'])
      expect(reasons.join(' ').replace(/\D/g, ' ')).not.toContain(digits);
  });

  it('stays under 500 characters, cutting lists with "and N more"', () => {
    const expected = Object.fromEntries(
      Array.from({ length: 40 }, (_, i) => [`field_${i}_${'x'.repeat(30)}`, 'y'.repeat(60)]),
    );
    const r = reason('json_field_match', { actual_output: '{}', expected_output: JSON.stringify(expected) });
    expect(r).toMatch(/^json_field_match: 40 of 40 expected keys differ: .* and 36 more$/);
    expect(r.length).toBeLessThanOrEqual(500);
    const tools = reason('tool_correctness', {
      tools_used: Array.from({ length: 30 }, (_, i) => `tool_${i}`),
      expected_tools: ['search'],
    });
    expect(tools).toContain('and 25 more');
    for (const name of Object.keys(DETERMINISTIC_METRICS)) {
      const huge = Array.from({ length: 300 }, (_, i) => `word${i}`).join(' ');
      const p = {
        actual_output: name.includes('json')
          ? JSON.stringify({ [huge]: huge })
          : name === 'iou' || name === 'spatial_match'
            ? '[0,0,1,1]'
            : huge,
        expected_output: name.includes('json')
          ? JSON.stringify({ a: huge })
          : name === 'iou' || name === 'spatial_match'
            ? '[0,0,1,1]'
            : `other ${huge.toUpperCase().replace(/WORD/g, 'term')}`,
        expected_tools: [huge],
        tools_used: [],
        voice: {
          agentSpeechMs: 1e9,
          userSpeechMs: 1e9,
          talkRatio: 0.5,
          overlapMs: 1e9,
          agentInterruptions: 1e6,
          deadAirMs: 1e9,
          responseLatencyMs: Array(10_000).fill(1e6),
        },
      };
      expect(DETERMINISTIC_METRICS[name]!(p).reason.length, name).toBeLessThanOrEqual(500);
    }
  });
});

it('finds personal data in linear time, even in one long run of letters or digits', () => {
  // Measured in this thread's CPU time, which a busy machine does not stretch.
  const cpuMs = () => {
    const u = process.threadCpuUsage();
    return (u.user + u.system) / 1000;
  };
  for (const text of ['a'.repeat(100_000), '7'.repeat(100_000), `${'x'.repeat(100_000)} jane@example.com`]) {
    const started = cpuMs();
    const r = DETERMINISTIC_METRICS.no_pii!({ actual_output: text });
    expect(cpuMs() - started).toBeLessThan(2000); // a quadratic scan takes minutes of CPU here
    expect(r.score).toBe(text.includes('@') ? 0 : 1);
  }
});

describe('JSON syntax explanations', () => {
  it('finds an error exactly when JSON.parse refuses the text', () => {
    const parses = (s: string) => {
      try {
        JSON.parse(s);
        return true;
      } catch {
        return false;
      }
    };
    const jsonish = fc.oneof(
      fc.json(),
      fc.json().map((s) => s.slice(0, -1)),
      fc
        .tuple(
          fc.json(),
          fc.integer({ min: 0, max: 20 }),
          fc.constantFrom('', ',', '}', ']', '"', ':', ' x', '\\', '\n', '-', '.', 'e', '\u0001'),
        )
        .map(([s, at, c]) => s.slice(0, at) + c + s.slice(at)),
      fc.string(),
    );
    fc.assert(
      fc.property(jsonish, (s) => {
        expect(jsonSyntaxError(s) === undefined).toBe(parses(s));
      }),
      { numRuns: 2000, seed: 42 },
    );
  });
});
