import { statusOf } from '../../shared/http/errors.js';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TObject } from '@sinclair/typebox';
import {
  ANSWER_VALIDATOR_MODULES,
  MCP_TOOL_VALIDATORS_PATH,
  precompiledPath,
  writeValidators,
} from '../../infra/validators.js';
import { MCP_TOOL_INPUTS, type McpToolName } from '../../shared/mcp/inputs.js';
import { toolInputValidator } from '../../shared/mcp/input-validators.js';
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

/**
 * Values close to a schema's: its properties (each may be missing), an extra key now and then, any
 * keys where it allows any, short arrays, and a value of the wrong type at any depth.
 */
function valueNear(schema: any): fc.Arbitrary<unknown> {
  const wrong = fc.oneof(fc.constant(null), fc.boolean(), fc.integer(), fc.string({ maxLength: 3 }));
  const near = (s: any): fc.Arbitrary<unknown> => {
    if (s.type === 'object') {
      const props: Record<string, fc.Arbitrary<unknown>> = Object.fromEntries(
        Object.entries(s.properties ?? {}).map(([k, v]) => [k, near(v)]),
      );
      const extra = fc.dictionary(
        fc.constantFrom('extra', 'source_1', 'role_play'),
        s.additionalProperties && typeof s.additionalProperties === 'object' ? near(s.additionalProperties) : wrong,
        { maxKeys: 2 },
      );
      return fc.oneof(
        { weight: 4, arbitrary: fc.record(props, { requiredKeys: Object.keys(props) }) },
        { weight: 1, arbitrary: fc.record(props, { requiredKeys: [] }) },
        { weight: 2, arbitrary: fc.tuple(fc.record(props), extra).map(([a, b]) => ({ ...b, ...a })) },
        { weight: 1, arbitrary: wrong },
      );
    }
    if (s.type === 'array') return fc.oneof({ weight: 5, arbitrary: fc.array(near(s.items), { maxLength: 3 }) }, wrong);
    const right =
      s.type === 'string'
        ? fc.string({ maxLength: 3 })
        : s.type === 'boolean'
          ? fc.boolean()
          : s.type === 'integer'
            ? fc.integer({ min: -2, max: 120 })
            : fc.double({ min: -0.5, max: 1.5, noNaN: true });
    return fc.oneof({ weight: 5, arbitrary: right }, wrong);
  };
  return near(schema);
}

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

  it('check the MCP tools’ arguments exactly as the checks compiled at load (fuzzed arguments)', async () => {
    const generated = readFileSync(MCP_TOOL_VALIDATORS_PATH, 'utf8');
    expect(generated).not.toMatch(/from '[^']*(functions|infra)\//);
    const precompiled = (await import(pathToFileURL(MCP_TOOL_VALIDATORS_PATH).href)) as {
      toolInputValidator: typeof toolInputValidator;
    };
    // One call of each tool that passes, so passing arguments (defaults filled in) are compared too.
    const passing: Record<McpToolName, Record<string, unknown>> = {
      list_runs: { status: ['COMPLETED'] },
      get_run: { runId: 'run_a' },
      compare_runs: { runId: 'run_a', baseRunId: 'run_b' },
      failing_cases: { runId: 'run_a', metricId: 'met_a', limit: 50 },
      start_run: { versionId: 'ver_a', testId: 'test_a', metricIds: ['met_a'], repetitions: 2, threshold: 0.7 },
      monitor_status: { monitorId: 'mon_a', days: 90 },
      next_review_item: { queueId: 'rq_a', reviewer: 'ann' },
      label_review_item: {
        queueId: 'rq_a',
        itemId: 'ri_a',
        reviewer: 'ann',
        labels: [{ metricId: 'met_a', score: 1 }],
      },
    };
    for (const [name, schema] of Object.entries(MCP_TOOL_INPUTS) as [McpToolName, object][]) {
      const expected = outcome(toolInputValidator(name), passing[name]);
      expect(expected, name).toHaveProperty('value');
      expect(outcome(precompiled.toolInputValidator(name), passing[name]), name).toEqual(expected);
      fc.assert(
        fc.property(valueNear(JSON.parse(JSON.stringify(schema))), (args) => {
          expect(outcome(precompiled.toolInputValidator(name), args), name).toEqual(
            outcome(toolInputValidator(name), args),
          );
        }),
        { numRuns: 1000, seed: 45 },
      );
    }
  });

  it.each(ANSWER_VALIDATOR_MODULES)(
    'check the fixed LLM answers of $record exactly as the answer compiler does (fuzzed answers)',
    async ({ path, schemas }) => {
      const generated = readFileSync(path, 'utf8');
      expect(generated).not.toMatch(/from '[^']*(functions|infra)\//);
      const { precompiledAnswerValidators } = (await import(pathToFileURL(path).href)) as {
        precompiledAnswerValidators: Map<object, AnswerValidator>;
      };
      const compile = newAnswerCompiler();
      const answer = (validate: AnswerValidator, value: unknown) =>
        validate(value) ? { valid: true } : { valid: false, errors: validate.errors };
      for (const [name, schema] of Object.entries(schemas)) {
        const precompiled = precompiledAnswerValidators.get(schema);
        expect(precompiled, name).toBeTypeOf('function');
        const runtime = compile(schema);
        const keys = [...Object.keys(schema.properties), 'extra'];
        const field = fc.oneof(fc.boolean(), fc.double(), fc.string(), fc.constant(null), fc.array(fc.integer()));
        const value = fc.oneof(
          fc.dictionary(fc.constantFrom(...keys), field),
          fc.record(Object.fromEntries(Object.keys(schema.properties).map((k) => [k, field]))),
          field,
          valueNear(schema),
        );
        let valid = 0;
        fc.assert(
          fc.property(value, (v) => {
            const expected = answer(runtime, v);
            expect(answer(precompiled!, v), name).toEqual(expected);
            if (expected.valid) valid++;
          }),
          { numRuns: 2000, seed: 26 },
        );
        // Valid answers were compared too, not only the ways an answer fails.
        expect(valid, name).toBeGreaterThan(20);
      }
      expect(precompiledAnswerValidators.size).toBe(Object.keys(schemas).length);
    },
  );
});
