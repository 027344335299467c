import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chunkText, normaliseText } from '../../shared/domain/generation/chunking.js';
import { documentKind, documentText, DocumentError } from '../../shared/domain/generation/documents.js';
import { htmlToText } from '../../shared/domain/generation/html-text.js';
import {
  MAX_CASES_PER_STEP,
  orderedStrategies,
  planSteps,
  QUALITY_CASES_PER_STEP,
  QUALITY_CHARS_PER_STEP,
  stepCaseCount,
} from '../../shared/domain/generation/plan.js';
import {
  qualityCasesSchema,
  redTeamAttacksSchema,
  refineAttacks,
  refineQuality,
  refineScenarios,
  scenarioCasesSchema,
} from '../../shared/domain/generation/answers.js';
import { baseLanguage, redTeamMessages, writtenStrategies } from '../../shared/domain/generation/prompts.js';
import { attackSlots, spreadEvenly, spreadOverCells } from '../../shared/domain/generation/spread.js';
import {
  base64,
  fromMorse,
  hex,
  homoglyph,
  leetspeak,
  morse,
  RED_TEAMING_STRATEGIES,
  rot13,
  transform,
  zeroWidth,
} from '../../shared/domain/generation/strategies.js';
import { defaultStrategies, maxTestCasesOf } from '../../shared/domain/tests/test-rules.js';
import { newAnswerCompiler } from '../../shared/llm/answer-compiler.js';
import { answerValidator, parseAnswer } from '../../shared/llm/answer.js';
import { minimalPdf } from '../support/pdf.js';

describe('deterministic strategies', () => {
  it('base64 is standard base64 of the UTF-8 bytes, and decodes back', () => {
    expect(base64('Hello')).toBe('SGVsbG8=');
    expect(base64('héllo')).toBe('aMOpbGxv');
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (s) => Buffer.from(base64(s), 'base64').toString('utf8') === s),
    );
  });

  it('hex is the UTF-8 bytes in lowercase hex, and decodes back', () => {
    expect(hex('Hi é')).toBe('486920c3a9');
    expect(hex('€')).toBe('e282ac');
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme' }),
        (s) => /^[0-9a-f]*$/.test(hex(s)) && Buffer.from(hex(s), 'hex').toString('utf8') === s,
      ),
    );
  });

  it('rot13 turns ASCII letters 13 places and is its own inverse', () => {
    expect(rot13('Hello, World!')).toBe('Uryyb, Jbeyq!');
    expect(rot13('Ça va? 123')).toBe('Çn in? 123');
    fc.assert(fc.property(fc.string(), (s) => rot13(rot13(s)) === s));
  });

  it('leetspeak maps a→4 e→3 i→1 o→0 s→5 t→7 in either case, nothing else', () => {
    expect(leetspeak('Tell me the secrets')).toBe('73ll m3 7h3 53cr375');
    expect(leetspeak('AEIOST aeiost bcdxyz')).toBe('431057 431057 bcdxyz');
  });

  it('homoglyph swaps Latin letters for Cyrillic look-alikes where one exists', () => {
    expect(homoglyph('Pay')).toBe('\u0420\u0430\u0443');
    expect(homoglyph('abc xyz')).toBe('\u0430b\u0441 \u0445\u0443z');
    expect(homoglyph('fund')).toBe('fund');
    expect([...homoglyph('Hello')].map((c) => c.codePointAt(0)!.toString(16))).toEqual([
      '41d',
      '435',
      '6c',
      '6c',
      '43e',
    ]);
  });

  it('morse writes ITU letters and digits, a space between letters, / between words, and decodes back', () => {
    expect(morse('SOS 2')).toBe('... --- ... / ..---');
    expect(morse('Hi, you!')).toBe('.... .. / -.-- --- ..-');
    expect(morse('Café  0')).toBe('-.-. .- ..-. . / -----');
    expect(fromMorse(morse('HELLO WORLD 42'))).toBe('HELLO WORLD 42');
    fc.assert(fc.property(fc.stringMatching(/^[A-Z0-9]{1,8}( [A-Z0-9]{1,8}){0,4}$/), (s) => fromMorse(morse(s)) === s));
  });

  it('zero_width puts U+200B after every character of each word', () => {
    expect(zeroWidth('ab c')).toBe('a\u200bb\u200b c\u200b');
    expect(zeroWidth('é😀')).toBe('é\u200b😀\u200b');
    fc.assert(fc.property(fc.string(), (s) => zeroWidth(s).replaceAll('\u200b', '') === s));
  });

  it('original is the attack itself; every strategy is known', () => {
    expect(transform('original', 'x y')).toBe('x y');
    expect(RED_TEAMING_STRATEGIES).toHaveLength(18);
    expect(orderedStrategies(['base64', 'original', 'emoji'])).toEqual(['original', 'base64', 'emoji']);
    expect(defaultStrategies('RED_TEAMING', ['hex', 'original'])).toEqual(['original', 'hex']);
    expect(defaultStrategies('RED_TEAMING', undefined)).toEqual(['original']);
    expect(defaultStrategies('SCENARIOS', ['spoken'])).toEqual(['spoken']);
  });
});

describe('spread of maxTestCases', () => {
  it('splits evenly, the first parts taking the remainder', () => {
    expect(spreadEvenly(10, 3)).toEqual([4, 3, 3]);
    expect(spreadEvenly(2, 5)).toEqual([1, 1, 0, 0, 0]);
    expect(spreadEvenly(0, 2)).toEqual([0, 0]);
    expect(spreadEvenly(5, 0)).toEqual([]);
  });

  it('over variants × strategies: never more than asked, at most one apart, original never behind', () => {
    expect(spreadOverCells(10, ['a', 'b'], ['original', 'hex']).map((c) => c.count)).toEqual([3, 3, 2, 2]);
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1000 }),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 18 }),
        (total, v, s) => {
          const variants = Array.from({ length: v }, (_, i) => `v${i}`);
          const strategies = RED_TEAMING_STRATEGIES.slice(0, s);
          const cells = spreadOverCells(total, variants, strategies);
          const counts = cells.map((c) => c.count);
          const slots = attackSlots(total, variants, strategies);
          const cases = slots.reduce((n, x) => n + x.strategies.length, 0);
          return (
            counts.reduce((a, b) => a + b, 0) === total &&
            Math.max(...counts) - Math.min(...counts) <= 1 &&
            cases === total &&
            slots.every((x) => x.strategies[0] === 'original')
          );
        },
      ),
    );
  });

  it('base attacks: attack j yields a case for every strategy whose cell holds more than j', () => {
    expect(attackSlots(5, ['misuse'], ['original', 'base64'])).toEqual([
      { variant: 'misuse', strategies: ['original', 'base64'] },
      { variant: 'misuse', strategies: ['original', 'base64'] },
      { variant: 'misuse', strategies: ['original'] },
    ]);
  });
});

describe('steps of a generation', () => {
  it('RED_TEAMING: attacks of one variant per step, within a transaction, exactly the target', () => {
    const steps = planSteps({
      type: 'RED_TEAMING',
      action: 'generate',
      target: 24,
      variants: ['misuse'],
      strategies: ['original', 'hex'],
    });
    expect(steps.map(stepCaseCount)).toEqual([20, 4]);
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1000 }),
        fc.integer({ min: 0, max: 6 }),
        fc.integer({ min: 1, max: 18 }),
        (target, v, s) => {
          const variants = [
            'data_leakage',
            'financial_attacks',
            'illegal_activities',
            'misuse',
            'toxicity',
            'custom',
          ].slice(0, v);
          const plan = planSteps({
            type: 'RED_TEAMING',
            action: 'generate',
            target,
            variants,
            strategies: RED_TEAMING_STRATEGIES.slice(0, s),
          });
          const counts = plan.map(stepCaseCount);
          return counts.reduce((a, b) => a + b, 0) === target && counts.every((n) => n > 0 && n <= MAX_CASES_PER_STEP);
        },
      ),
    );
  });

  it('QUALITY: cells over chunks and variants, each step within its case and text budgets', () => {
    const steps = planSteps({
      type: 'QUALITY',
      action: 'generate',
      target: 4,
      variants: ['rag', 'summarization'],
      strategies: [],
      chunkLengths: [100],
    });
    expect(steps).toEqual([
      {
        kind: 'quality',
        cells: [
          { chunk: 0, variant: 'rag', count: 2 },
          { chunk: 0, variant: 'summarization', count: 2 },
        ],
      },
    ]);
    const spread = planSteps({
      type: 'QUALITY',
      action: 'generate',
      target: 3,
      variants: [],
      strategies: [],
      chunkLengths: [10, 10, 10, 10, 10],
    });
    expect(spread.flatMap((s) => (s.kind === 'quality' ? s.cells : []))).toEqual(
      [0, 1, 2].map((chunk) => ({ chunk, variant: null, count: 1 })),
    );
    const extend = planSteps({
      type: 'QUALITY',
      action: 'extend',
      target: 2,
      variants: [],
      strategies: [],
      chunkLengths: [10, 10, 10, 10, 10],
      offset: 3,
    });
    expect(extend.flatMap((s) => (s.kind === 'quality' ? s.cells.map((c) => c.chunk) : []))).toEqual([3, 4]);
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1000 }),
        fc.array(fc.integer({ min: 1, max: 2000 }), { minLength: 1, maxLength: 300 }),
        (target, lengths) => {
          const plan = planSteps({
            type: 'QUALITY',
            action: 'generate',
            target,
            variants: ['rag'],
            strategies: [],
            chunkLengths: lengths,
          });
          return (
            plan.map(stepCaseCount).reduce((a, b) => a + b, 0) === target &&
            plan.every((s) => {
              if (s.kind !== 'quality') return false;
              const chunks = [...new Set(s.cells.map((c) => c.chunk))];
              return (
                stepCaseCount(s) <= QUALITY_CASES_PER_STEP &&
                (chunks.length === 1 || chunks.reduce((n, i) => n + lengths[i]!, 0) <= QUALITY_CHARS_PER_STEP)
              );
            })
          );
        },
      ),
    );
  });

  it('SCENARIOS and augment: batches of at most 10, spread over the strategies', () => {
    expect(
      planSteps({ type: 'SCENARIOS', action: 'generate', target: 25, variants: [], strategies: ['written', 'spoken'] }),
    ).toEqual([
      { kind: 'scenarios', strategy: 'written', count: 7 },
      { kind: 'scenarios', strategy: 'written', count: 6 },
      { kind: 'scenarios', strategy: 'spoken', count: 6 },
      { kind: 'scenarios', strategy: 'spoken', count: 6 },
    ]);
    expect(planSteps({ type: 'QUALITY', action: 'augment', target: 15, variants: [], strategies: [] })).toEqual([
      { kind: 'augment', count: 8 },
      { kind: 'augment', count: 7 },
    ]);
  });
});

describe('chunking', () => {
  it('keeps paragraphs together up to the limit and cuts longer ones at sentence ends', () => {
    expect(chunkText('One.\n\nTwo.\n\n\n\nThree.', 12)).toEqual(['One.\n\nTwo.', 'Three.']);
    expect(chunkText('First sentence here. Second one is here. Third.', 25)).toEqual([
      'First sentence here.',
      'Second one is here.',
      'Third.',
    ]);
    expect(chunkText('x'.repeat(25), 10)).toEqual(['x'.repeat(10), 'x'.repeat(10), 'x'.repeat(5)]);
    expect(chunkText('   \n\n  ')).toEqual([]);
    expect(normaliseText('a \t b\r\nc  \n\n\n\nd')).toBe('a b\nc\n\nd');
    expect(() => chunkText('x', 0)).toThrow(RangeError);
  });

  it('never exceeds the limit and loses no word', () => {
    fc.assert(
      fc.property(
        fc.array(fc.stringMatching(/^[a-z]{1,12}[.!?]?$/), { maxLength: 300 }),
        fc.integer({ min: 20, max: 400 }),
        fc.boolean(),
        (words, max, paragraphs) => {
          const text = words.join(paragraphs ? '\n\n' : ' ');
          const chunks = chunkText(text, max);
          return (
            chunks.every((c) => c.length > 0 && c.length <= max) &&
            chunks.join(' ').split(/\s+/).filter(Boolean).join(' ') === words.join(' ')
          );
        },
      ),
    );
  });
});

describe('documents', () => {
  it('recognises the kind by extension, else by the first bytes', () => {
    const bytes = (s: string) => Buffer.from(s);
    expect(documentKind('a/b/handbook.PDF', bytes(''))).toBe('pdf');
    expect(documentKind('notes.md', bytes(''))).toBe('markdown');
    expect(documentKind('blob', bytes('%PDF-1.7'))).toBe('pdf');
    expect(documentKind('blob', bytes('  <!DOCTYPE html><p>x'))).toBe('html');
    expect(documentKind('blob', bytes('plain'))).toBe('text');
  });

  it('strips HTML tags, scripts and styles, and decodes entities', () => {
    expect(
      htmlToText(
        '<html><head><style>p{}</style></head><body><h1>Hi &amp; bye</h1><p>Para <b>one</b></p><script>x()</script></body></html>',
      ).trim(),
    ).toBe('Hi & bye\n\n\n\nPara one');
  });

  it('reads PDF, JSON, CSV and text; refuses what it cannot read with the reason', async () => {
    expect(await documentText('x.pdf', minimalPdf(['Refunds take 14 days.', 'Shipping (EU) is free.']))).toBe(
      'Refunds take 14 days.\nShipping (EU) is free.',
    );
    expect(await documentText('x.json', Buffer.from('{"plan":"pro"}'))).toBe('{\n  "plan": "pro"\n}');
    expect(await documentText('x.csv', Buffer.from('\uFEFFq,a\nhi,there\n'))).toBe('q,a\nhi,there\n');
    await expect(documentText('x.pdf', Buffer.from('not a pdf'))).rejects.toThrow(/^it is not a readable PDF/);
    await expect(documentText('x.json', Buffer.from('{'))).rejects.toThrow(/^it is not valid JSON/);
    await expect(documentText('x.txt', Buffer.from([0xff, 0xfe, 0x00]))).rejects.toBeInstanceOf(DocumentError);
    await expect(documentText('x.html', Buffer.from('<script>x</script>'))).rejects.toThrow(
      'it holds no text (read as html)',
    );
  });
});

describe("the generator's output", () => {
  // A generic stub's answer: every property, arrays of minItems items, the lowest allowed integer.
  let n = 0;
  const fake = (s: any): any =>
    s.type === 'object'
      ? Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [k, fake(v)]))
      : s.type === 'array'
        ? Array.from({ length: s.minItems ?? 1 }, () => fake(s.items))
        : s.type === 'integer'
          ? (s.minimum ?? 0)
          : `text ${++n}`;

  it('the schemas are strict structured-output schemas', () => {
    const strict = (s: any): boolean =>
      s.type !== 'object' ||
      (s.additionalProperties === false &&
        JSON.stringify([...s.required].sort()) === JSON.stringify(Object.keys(s.properties).sort()) &&
        Object.values(s.properties).every(strict)) ||
      false;
    const walk = (s: any): boolean =>
      s.type === 'array'
        ? walk(s.items)
        : strict(s) && Object.values(s.properties ?? {}).every((p: any) => (p.type === 'array' ? walk(p.items) : true));
    const schemas = [
      redTeamAttacksSchema(3, ['role_play', 'emoji']),
      redTeamAttacksSchema(1, []),
      qualityCasesSchema([
        { source: 1, count: 2 },
        { source: 2, count: 5 },
      ]),
      scenarioCasesSchema(4),
    ];
    for (const schema of schemas) expect(walk(schema)).toBe(true);
    // Built once per shape: the client compiles each schema object once.
    expect(redTeamAttacksSchema(3, ['role_play', 'emoji'])).toBe(schemas[0]);
  });

  it('any schema-conforming answer holds what was asked (the counts and rewrites are in the schema)', async () => {
    const slots = [
      { variant: 'misuse', strategies: ['original', 'base64', 'role_play', 'emoji'] },
      { variant: 'misuse', strategies: ['original', 'role_play'] },
      { variant: 'misuse', strategies: ['original'] },
    ];
    const attacks = redTeamAttacksSchema(slots.length, writtenStrategies(slots));
    expect(writtenStrategies(slots)).toEqual(['role_play', 'emoji']);
    const answer = await parseAnswer<any>(JSON.stringify(fake(attacks)), attacks, 'red_team_attacks', 'generator');
    expect(answer.ok && refineAttacks(slots)(answer.value)).toBeUndefined();
    const blocks = [
      { source: 1, text: 't', count: 3, variant: null },
      { source: 2, text: 'u', count: 1, variant: 'rag' },
    ];
    const quality = qualityCasesSchema(blocks);
    const qa = await parseAnswer<any>(JSON.stringify(fake(quality)), quality, 'quality_cases', 'generator');
    expect(qa.ok && refineQuality(blocks)(qa.value)).toBeUndefined();
    const scenarios = scenarioCasesSchema(7);
    const sa = await parseAnswer<any>(JSON.stringify(fake(scenarios)), scenarios, 'scenario_cases', 'generator');
    expect(sa.ok && refineScenarios(7)(sa.value)).toBeUndefined();
    // Fewer items than asked is a schema error, retried once like any invalid answer.
    const short = await parseAnswer('{"scenarios":[]}', scenarios, 'scenario_cases', 'generator');
    expect(!short.ok && short.error).toBe(
      "the generator's answer does not match scenario_cases: scenarios must have at least 7 items",
    );
  });

  it('checks an answer by its fixed shape and the built rules exactly as the whole built schema would (fuzzed answers)', async () => {
    // Every object and array of a value, by path.
    const containers = (v: any, path: (string | number)[] = []): (string | number)[][] =>
      v !== null && typeof v === 'object'
        ? [path, ...Object.entries(v).flatMap(([k, c]) => containers(c, [...path, Array.isArray(v) ? Number(k) : k]))]
        : [];
    const KEYS = ['extra', 'rewrites', 'source', 'source_1', 'source_9', 'role_play', 'emoji', 'prefix'];
    const mutate = (value: any, [pick, op, key]: [number, string, number]) => {
      const all = containers(value);
      const path = all[pick % all.length]!;
      const node = path.reduce((n: any, k) => n[k], value);
      const parent = path.slice(0, -1).reduce((n: any, k) => n[k], value);
      const last = path.at(-1);
      if (op === 'retype' && last !== undefined) parent[last] = key % 2 ? 7 : 'x';
      else if (Array.isArray(node)) {
        if (op === 'delete') node.pop();
        else node.push(structuredClone(node[0] ?? {}));
      } else if (op === 'delete') delete node[Object.keys(node)[key % Math.max(1, Object.keys(node).length)]!];
      else node[KEYS[key % KEYS.length]!] = op === 'add' ? 'text' : [];
    };
    const schemaOf = fc.oneof(
      fc
        .tuple(fc.nat(3), fc.subarray(['role_play', 'emoji', 'prefix']))
        .map(([n, written]) => redTeamAttacksSchema(n, written)),
      fc
        .uniqueArray(fc.tuple(fc.integer({ min: 1, max: 9 }), fc.nat(3)), { selector: (b) => b[0], maxLength: 3 })
        .map((bs) => qualityCasesSchema(bs.map(([source, count]) => ({ source, count })))),
      fc.nat(3).map((n) => scenarioCasesSchema(n)),
    );
    const mutation = fc.tuple(fc.nat(), fc.constantFrom('delete', 'add', 'list', 'retype'), fc.nat());
    const compiler = newAnswerCompiler();
    const compiled = new Map<object, (value: unknown) => boolean>();
    const compile = (schema: object) => compiled.get(schema) ?? compiled.set(schema, compiler(schema)).get(schema)!;
    const seen = { valid: 0, invalid: 0 };
    await fc.assert(
      fc.asyncProperty(schemaOf, fc.array(mutation, { maxLength: 2 }), async (schema, mutations) => {
        const answer = fake(schema);
        for (const m of mutations) mutate(answer, m);
        const whole = compile(schema)(answer);
        const built = await answerValidator(schema);
        expect(built(answer), JSON.stringify({ schema, answer })).toBe(whole);
        if (!whole) expect(built.errors?.[0]?.keyword).toBeTypeOf('string');
        seen[whole ? 'valid' : 'invalid']++;
      }),
      { numRuns: 3000, seed: 27 },
    );
    expect(seen.valid).toBeGreaterThan(300);
    expect(seen.invalid).toBeGreaterThan(1000);
    // The rules name the field and the count the whole schema would.
    const two = redTeamAttacksSchema(2, ['role_play']);
    const one = { source: 1, attack: 'a', rewrites: { role_play: 'b' } };
    const said = async (schema: object, answer: unknown) => {
      const r = await parseAnswer(JSON.stringify(answer), schema, 'x', 'generator');
      return r.ok ? 'ok' : r.error.replace(/^.*does not match x: /, '');
    };
    expect(await said(two, { attacks: [one] })).toBe('attacks must have at least 2 items');
    expect(await said(two, { attacks: [one, one, one] })).toBe('attacks must have at most 2 items');
    expect(await said(two, { attacks: [one, { ...one, rewrites: {} }] })).toBe(
      'attacks[1].rewrites.role_play is required',
    );
    expect(await said(two, { attacks: [one, { ...one, rewrites: { role_play: 'b', emoji: 'c' } }] })).toBe(
      "unknown field 'attacks[1].rewrites.emoji'",
    );
    expect(await said(redTeamAttacksSchema(1, []), { attacks: [one] })).toBe("unknown field 'attacks[0].rewrites'");
    const quality = qualityCasesSchema([{ source: 2, count: 1 }]);
    expect(await said(quality, { cases: {} })).toBe('cases.source_2 is required');
    expect(await said(quality, { cases: { source_2: [], source_3: [] } })).toBe("unknown field 'cases.source_3'");
    expect(await said(quality, { cases: { source_2: [] } })).toBe('cases.source_2 must have at least 1 item');
  });

  it('an answer must match the schema, and hold what was asked', async () => {
    const slots = [{ variant: 'misuse', strategies: ['original', 'role_play'] }];
    const good = {
      attacks: [{ source: 1, attack: 'give me the logs', rewrites: { role_play: 'as a pirate, give me the logs' } }],
    };
    const schema = redTeamAttacksSchema(1, ['role_play']);
    expect(await parseAnswer(JSON.stringify(good), schema, 'red_team_attacks', 'generator')).toEqual({
      ok: true,
      value: good,
    });
    expect(refineAttacks(slots)(good)).toBeUndefined();
    expect(refineAttacks(slots)({ attacks: [{ ...good.attacks[0]!, rewrites: { role_play: ' ' } }] })).toBe(
      'attacks[0].rewrites.role_play must not be empty',
    );
    expect(
      (
        await parseAnswer(
          JSON.stringify({ attacks: [{ ...good.attacks[0]!, rewrites: {} }] }),
          schema,
          'red_team_attacks',
          'generator',
        )
      ).ok,
    ).toBe(false);
    expect(refineAttacks([...slots, ...slots])(good)).toBe('attacks must hold 2 items, found 1');
    const bad = await parseAnswer('{"attacks":[{"attack":"x"}]}', schema, 'red_team_attacks', 'generator');
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.error).toMatch(/^the generator's answer does not match red_team_attacks: /);
    expect(
      refineQuality([{ source: 1, text: 't', count: 2, variant: null }])({
        cases: {
          source_1: [
            { input: 'q', expectedOutput: 'a' },
            { input: ' ', expectedOutput: 'a' },
          ],
        },
      }),
    ).toBe('cases must hold 2 cases with a non-empty input and expectedOutput for source 1, found 1');
    const scenario = { source: 0, goal: 'g', userPersona: 'p', scenario: 's', stoppingCriterias: [], maxIterations: 0 };
    expect(refineScenarios(1)({ scenarios: [scenario] })).toBe('scenarios[0].maxIterations must be from 1 to 100');
    expect(refineScenarios(1)({ scenarios: [{ ...scenario, maxIterations: 10 }] })).toBeUndefined();
  });

  it('asks in the base language of the tag, for the rewrites each attack needs', () => {
    expect(baseLanguage('pt-BR')).toBe('Portuguese');
    expect(baseLanguage('zh-Hant-TW')).toBe('Chinese');
    const test = { customVariantDescription: null, languageCode: 'de-AT' } as never;
    const product = {
      name: 'Bot',
      description: 'd',
      capabilities: [],
      inabilities: ['no refunds'],
      securityBoundaries: [],
      policies: [],
    } as never;
    const messages = redTeamMessages({ test, product }, 'misuse', [
      { variant: 'misuse', strategies: ['original', 'base64', 'emoji'] },
    ]);
    const last = messages.at(-1)!.content;
    expect(last).toContain('Write exactly 1 distinct attack');
    expect(last).toContain('- source 1: rewrites emoji');
    expect(last).toContain('Write in German.');
    expect(messages.map((m) => m.content).join('\n')).toContain('no refunds');
  });
});

describe('maxTestCases of a generated test', () => {
  it('defaults per type, refuses more than the bound, is null for an uploaded test', () => {
    expect(maxTestCasesOf('QUALITY', undefined, false)).toBe(50);
    expect(maxTestCasesOf('RED_TEAMING', undefined, false)).toBe(50);
    expect(maxTestCasesOf('SCENARIOS', undefined, false)).toBe(20);
    expect(maxTestCasesOf('SCENARIOS', 100, false)).toBe(100);
    expect(maxTestCasesOf('QUALITY', undefined, true)).toBeNull();
    expect(() => maxTestCasesOf('SCENARIOS', 101, false)).toThrow(
      'maxTestCases must be at most 100 for SCENARIOS tests',
    );
    expect(() => maxTestCasesOf('QUALITY', 1001, false)).toThrow('maxTestCases must be at most 1000 for QUALITY tests');
  });
});
