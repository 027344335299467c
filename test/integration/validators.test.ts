import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TObject } from '@sinclair/typebox';
import { buildValidators, listPrecompiled, precompiledPath } from '../../infra/validators.js';
import { routes } from '../../shared/routes.js';
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
    return { status: (error as { statusCode?: number }).statusCode, message: (error as Error).message };
  }
}

describe('precompiled validators', () => {
  it('are current: `npm run validators` would write exactly the committed modules, one per route', async () => {
    const built = await buildValidators();
    expect(listPrecompiled().sort(), 'run `npm run validators` after adding or removing a route').toEqual([...built.keys()].sort());
    for (const [handler, code] of built) {
      expect(readFileSync(precompiledPath(handler), 'utf8'), `run \`npm run validators\` after changing the schemas of ${handler}`).toBe(code);
    }
  }, 120_000);

  it('answer every request exactly as the validators compiled at load (fuzzed paths, queries and bodies)', async () => {
    const contracts = await loadContracts();
    const pairs = new Map<string, { runtime: RouteValidators; precompiled: RouteValidators; query: TObject }>();
    for (const route of routes) {
      await import(pathToFileURL(precompiledPath(route.handler)).href);
      const contract = contracts.find((c) => c.route.handler === route.handler)!;
      const precompiled = registeredValidators(route.handler);
      expect(precompiled, route.handler).toBeDefined();
      const { handler } = (await import(pathToFileURL(precompiledPath(route.handler)).href)) as { handler: { contract: { params?: TObject; query: TObject; body?: TObject } } };
      const declared = handler.contract;
      const runtime = routeValidators(route.handler, { params: declared.params ?? { type: 'object', additionalProperties: true }, query: declared.query, body: declared.body });
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
        if (query !== undefined) expect(outcome(pair.precompiled.query, query)).toEqual(outcome(pair.runtime.query, query));
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
});
