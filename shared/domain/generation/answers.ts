/**
 * The answer schemas of the generator's calls, and the checks of what a schema cannot say (the
 * `refine` functions): each answer is a structured output of the one LLM client.
 */
import { precompiledAnswerValidators as precompiledShapes } from '#generator-answer-validators';
import {
  ATTACK_PROPERTIES,
  QUALITY_CASES_SHAPE,
  QUALITY_CASE_PROPERTIES,
  RED_TEAM_ATTACKS_SHAPE,
  SCENARIO_CASES_SHAPE,
  SCENARIO_PROPERTIES,
  strictObject,
} from '../../llm/answer-schemas.js';
import { builtOn, usePrecompiledAnswerValidators } from '../../llm/answer.js';
import type { AttackSlot } from './spread.js';
import { isDeterministic } from './strategies.js';
import type { ErrorObject } from 'ajv';

/*
 * Each schema below is sent to the model as it is, and is one of the fixed shapes of
 * shared/llm/answer-schemas.ts plus a few rules (the counts asked, exact keys). An answer is
 * checked by the shape's validator, precompiled in the generator's bundle, then by those rules,
 * written here as the ajv errors the whole schema would give (`builtOn`).
 */
usePrecompiledAnswerValidators(precompiledShapes);

/** Answer schemas built per call, kept (a few hundred at most) so a warm worker builds each once. */
const schemas = new Map<string, object>();

function memo(key: string, build: () => object): object {
  let schema = schemas.get(key);
  if (!schema) {
    if (schemas.size >= 300) schemas.delete(schemas.keys().next().value!);
    schema = build();
    schemas.set(key, schema);
  }
  return schema;
}

/** An array of exactly `n` items: the count asked is part of the schema, so a schema-conforming answer holds it. */
export const exactly = (n: number, items: object) => ({ type: 'array', minItems: n, maxItems: n, items }) as const;

/** The JSON Pointer of a property. */
export const at = (path: string, key: string) => `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;

const broken = (instancePath: string, keyword: string, params: Record<string, unknown>): ErrorObject => ({
  instancePath,
  keyword,
  params,
  schemaPath: '',
});

/** Exactly `n` items. */
const countRule = (path: string, items: readonly unknown[], n: number): ErrorObject | undefined =>
  items.length < n
    ? broken(path, 'minItems', { limit: n })
    : items.length > n
      ? broken(path, 'maxItems', { limit: n })
      : undefined;

/** Exactly the keys `names`: the first one missing, else the first other one. */
function keysRule(path: string, value: object, names: readonly string[]): ErrorObject | undefined {
  const missing = names.find((k) => !Object.hasOwn(value, k));
  if (missing !== undefined) return broken(path, 'required', { missingProperty: missing });
  const extra = Object.keys(value).find((k) => !names.includes(k));
  return extra === undefined ? undefined : broken(path, 'additionalProperties', { additionalProperty: extra });
}

/**
 * RED_TEAMING: `count` base attacks, each with one rewrite per strategy of `written` (the
 * strategies the generator writes for this step; no `rewrites` when there is none).
 */
export function redTeamAttacksSchema(count: number, written: readonly string[]): object {
  return memo(`attacks ${count} ${written.join(',')}`, () => {
    const attackKeys = [...Object.keys(ATTACK_PROPERTIES), ...(written.length ? ['rewrites'] : [])];
    return builtOn(
      strictObject({
        attacks: exactly(
          count,
          strictObject({
            ...ATTACK_PROPERTIES,
            ...(written.length
              ? { rewrites: strictObject(Object.fromEntries(written.map((w) => [w, { type: 'string' }]))) }
              : {}),
          }),
        ),
      }),
      RED_TEAM_ATTACKS_SHAPE,
      (value) => {
        const { attacks } = value as RedTeamAttacks;
        const counted = countRule('/attacks', attacks, count);
        if (counted) return counted;
        for (const [i, attack] of attacks.entries()) {
          const path = at('/attacks', String(i));
          const rule =
            keysRule(path, attack, attackKeys) ??
            (attack.rewrites && keysRule(at(path, 'rewrites'), attack.rewrites, written));
          if (rule) return rule;
        }
        return undefined;
      },
    );
  });
}

/** The property of a QUALITY answer holding the cases of numbered source block `n`. */
export const sourceKey = (n: number): string => `source_${n}`;

/** QUALITY: per numbered source block, exactly the cases asked of it (question and expected answer). */
export function qualityCasesSchema(blocks: readonly Pick<SourceBlock, 'source' | 'count'>[]): object {
  return memo(`quality ${blocks.map((b) => `${b.source}:${b.count}`).join(',')}`, () =>
    builtOn(
      strictObject({
        cases: strictObject(
          Object.fromEntries(
            blocks.map((b) => [sourceKey(b.source), exactly(b.count, strictObject(QUALITY_CASE_PROPERTIES))]),
          ),
        ),
      }),
      QUALITY_CASES_SHAPE,
      (value) => {
        const { cases } = value as QualityCases;
        const keysBroken = keysRule(
          '/cases',
          cases,
          blocks.map((b) => sourceKey(b.source)),
        );
        if (keysBroken) return keysBroken;
        for (const b of blocks) {
          const key = sourceKey(b.source);
          const rule = countRule(at('/cases', key), cases[key]!, b.count);
          if (rule) return rule;
        }
        return undefined;
      },
    ),
  );
}

/** SCENARIOS: exactly `count` conversations for the simulated user of runs. */
export function scenarioCasesSchema(count: number): object {
  return memo(`scenarios ${count}`, () =>
    builtOn(
      strictObject({ scenarios: exactly(count, strictObject(SCENARIO_PROPERTIES)) }),
      SCENARIO_CASES_SHAPE,
      (value) => countRule('/scenarios', (value as ScenarioCases).scenarios, count),
    ),
  );
}

export interface RedTeamAttacks {
  /** `rewrites`: the rewritten attack by strategy name. */
  attacks: { source: number; attack: string; rewrites?: Record<string, string> }[];
}

export interface QualityCases {
  /** By `sourceKey` of each block. */
  cases: Record<string, { input: string; expectedOutput: string }[]>;
}

export interface ScenarioCases {
  scenarios: {
    source: number;
    goal: string;
    userPersona: string;
    scenario: string;
    stoppingCriterias: string[];
    maxIterations: number;
  }[];
}

export interface SourceBlock {
  /** 1-based number the answer refers to. */
  source: number;
  text: string;
  count: number;
  variant: string | null;
}

export function refineAttacks(slots: AttackSlot[]) {
  return (answer: RedTeamAttacks): string | undefined => {
    if (answer.attacks.length < slots.length)
      return `attacks must hold ${slots.length} items, found ${answer.attacks.length}`;
    for (const [i, slot] of slots.entries()) {
      const a = answer.attacks[i]!;
      if (a.attack.trim() === '') return `attacks[${i}].attack must not be empty`;
      for (const s of slot.strategies.filter((x) => !isDeterministic(x))) {
        if (!a.rewrites?.[s]?.trim()) return `attacks[${i}].rewrites.${s} must not be empty`;
      }
    }
    return undefined;
  };
}

export function refineQuality(blocks: SourceBlock[]) {
  return (answer: QualityCases): string | undefined => {
    for (const b of blocks) {
      const mine = (answer.cases[sourceKey(b.source)] ?? []).filter(
        (c) => c.input.trim() !== '' && c.expectedOutput.trim() !== '',
      );
      if (mine.length < b.count)
        return `cases must hold ${b.count} cases with a non-empty input and expectedOutput for source ${b.source}, found ${mine.length}`;
    }
    return undefined;
  };
}

export function refineScenarios(count: number) {
  return (answer: ScenarioCases): string | undefined => {
    if (answer.scenarios.length < count) return `scenarios must hold ${count} items, found ${answer.scenarios.length}`;
    for (const [i, s] of answer.scenarios.slice(0, count).entries()) {
      if (s.goal.trim() === '') return `scenarios[${i}].goal must not be empty`;
      if (s.userPersona.trim() === '') return `scenarios[${i}].userPersona must not be empty`;
      if (s.maxIterations < 1 || s.maxIterations > 100) return `scenarios[${i}].maxIterations must be from 1 to 100`;
    }
    return undefined;
  };
}
