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
    const expected = Math.exp(1 - 9 / 8) * Math.pow((8 / 8) * (6 / 7) * (5 / 6) * (4 / 5), 1 / 4);
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
  const names = predefinedMetrics().filter((m) => m.source === 'DETERMINISTIC').map((m) => m.name);
  expect(Object.keys(DETERMINISTIC_METRICS).sort()).toEqual(names.sort());
});
