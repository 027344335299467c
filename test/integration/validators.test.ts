import { statusOf } from '../../shared/http/errors.js';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TObject } from '@sinclair/typebox';
import { ANSWER_VALIDATORS_PATH, precompiledPath, writeValidators } from '../../infra/validators.js';
import { FIXED_ANSWER_SCHEMAS } from '../../shared/llm/answer-schemas.js';
import { newAnswerCompiler } from '../../shared/llm/answer-compiler.js';
import type { AnswerValidator } from '../../shared/llm/answer.js';
import { routes } from '../../shared/routes.js';
import { routeFormats } from '../../shared/schemas/route-formats.js';
import { normaliseQuery } from '../../shared/http/query.js';
import { routeValidators } from '../../shared/http/route-validators.js';
import { registeredValidators, type RouteValidators, type Validator } from '../../shared/http/validators.js';
import { loadContracts, requestArb, resolveRefs } from '../support/fuzz.js';

/** What a validator answers: the validated value (defaults applied, strings coerced) or its 400 message. */
function outcome(validate: Validator<unknown> | undefined, value: unknown): unknown {
  if (!validate) return { noValidator: true };
  try {
    return { value: validate(structuredClone(value)) };
  } catch (error) {
    return { status: statusOf(error), message: (error as Error).message };
  }
}

const ROOT = resolve(import.meta.dirname, '..', '..');

let written = 0;
beforeAll(async () => {
  written = await writeValidators();
}, 120_000);

describe('precompiled validators', () => {
  it('are generated for every route, importing nothing from functions/', () => {
    expect(written).toBe(routes.length);
    for (const route of routes) {
      const code = readFileSync(precompiledPath(route.handler), 'utf8');
      expect(code, route.handler).toContain(`registerValidators('${route.handler}'`);
      expect(code, route.handler).not.toMatch(/from '[^']*functions\//);
    }
  });

  it('name only formats shared/schemas/route-formats.ts holds', () => {
    const named = new Set(
      routes.flatMap((r) =>
        [
          ...readFileSync(precompiledPath(r.handler), 'utf8').matchAll(
            /fullFormats(?:\["([^"]+)"\]|\.([A-Za-z_$][\w$]*))/g,
          ),
        ].map((m) => (m[1] ?? m[2])!),
      ),
    );
    expect([...named].sort()).toEqual(expect.arrayContaining(['date-time', 'uri']));
    for (const name of named) expect(Object.keys(routeFormats), `format ${name}`).toContain(name);
  });

  it('answer every request exactly as the validators compiled at load (fuzzed paths, queries and bodies)', async () => {
    const contracts = await loadContracts();
    const pairs = new Map<string, { runtime: RouteValidators; precompiled: RouteValidators; query: TObject }>();
    for (const route of routes) {
      await import(pathToFileURL(precompiledPath(route.handler)).href);
      const contract = contracts.find((c) => c.route.handler === route.handler)!;
      const precompiled = registeredValidators(route.handler);
      expect(precompiled, route.handler).toBeDefined();
      const { handler } = (await import(pathToFileURL(resolve(ROOT, 'functions', `${route.handler}.ts`)).href)) as {
        handler: { contract: { params?: TObject; query: TObject; body?: TObject } };
      };
      const declared = handler.contract;
      const runtime = routeValidators(route.handler, {
        params: declared.params ?? { type: 'object', additionalProperties: true },
        query: declared.query,
        body: declared.body,
      });
      pairs.set(route.handler, { runtime, precompiled: precompiled!, query: contract.query as unknown as TObject });
    }
    let compared = 0;
    await fc.assert(
      fc.asyncProperty(requestArb(contracts, { maxString: 40 }), async (req) => {
        const pair = pairs.get(req.handler)!;
        const route = routes.find((r) => r.handler === req.handler)!;
        const segments = resolveRefs(req.path, {}).split('/');
        const params: Record<string, string> = {};
        route.path.split('/').forEach((s, i) => {
          if (s.startsWith('{')) params[s.slice(1, -1)] = segments[i] ?? '';
        });
        expect(outcome(pair.precompiled.params, params)).toEqual(outcome(pair.runtime.params, params));
        const multi: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
        for (const [k, v] of req.query) (multi[k] ??= []).push(resolveRefs(v, {}));
        let query: unknown;
        try {
          query = normaliseQuery({ queryStringParameters: null, multiValueQueryStringParameters: multi }, pair.query);
        } catch {
          query = undefined; // refused before validation (the same for both)
        }
        if (query !== undefined)
          expect(outcome(pair.precompiled.query, query)).toEqual(outcome(pair.runtime.query, query));
        if (req.body !== undefined) {
          let body: unknown;
          try {
            body = JSON.parse(resolveRefs(req.body, {}));
          } catch {
            return;
          }
          expect(outcome(pair.precompiled.body, body)).toEqual(outcome(pair.runtime.body, body));
        }
        compared++;
      }),
      { numRuns: 3000, seed: 16 },
    );
    expect(compared).toBeGreaterThan(1000);
  }, 120_000);

  it('check the fixed LLM answers exactly as the answer compiler does (fuzzed answers)', async () => {
    const generated = readFileSync(ANSWER_VALIDATORS_PATH, 'utf8');
    expect(generated).not.toMatch(/from '[^']*(functions|infra)\//);
    const { precompiledAnswerValidators } = (await import(pathToFileURL(ANSWER_VALIDATORS_PATH).href)) as {
      precompiledAnswerValidators: Map<object, AnswerValidator>;
    };
    const compile = newAnswerCompiler();
    const answer = (validate: AnswerValidator, value: unknown) =>
      validate(value) ? { valid: true } : { valid: false, errors: validate.errors };
    for (const [name, schema] of Object.entries(FIXED_ANSWER_SCHEMAS)) {
      const precompiled = precompiledAnswerValidators.get(schema);
      expect(precompiled, name).toBeTypeOf('function');
      const runtime = compile(schema);
      const keys = [...Object.keys(schema.properties), 'extra'];
      const field = fc.oneof(fc.boolean(), fc.double(), fc.string(), fc.constant(null), fc.array(fc.integer()));
      const value = fc.oneof(
        fc.dictionary(fc.constantFrom(...keys), field),
        fc.record(Object.fromEntries(Object.keys(schema.properties).map((k) => [k, field]))),
        field,
      );
      fc.assert(
        fc.property(value, (v) => {
          expect(answer(precompiled!, v), name).toEqual(answer(runtime, v));
        }),
        { numRuns: 2000, seed: 26 },
      );
    }
    expect(precompiledAnswerValidators.size).toBe(Object.keys(FIXED_ANSWER_SCHEMAS).length);
  });
});
