/**
 * The JSON Schemas of the LLM answers whose shape never changes (the judge's score, the simulated
 * user's turn): one source for the `response_format` the client sends and the validator that checks
 * the answer. Function bundles carry their validators precompiled (infra/validators.ts writes them
 * before bundling), so no schema compiler is loaded to check them; everywhere else they are
 * compiled on first use like any other answer schema (./answer.ts).
 *
 * The generator's answers are built per call (the counts asked, the source keys, the strategies
 * written), on the fixed shapes below: a built schema is what the model is sent, and its answer is
 * checked by the shape's validator plus the rules the built schema adds (`builtOn` in ./answer.ts).
 */

export const JUDGE_SCORE_SCHEMA = {
  type: 'object',
  properties: {
    score: { type: 'number', minimum: 0, maximum: 1 },
    reason: { type: 'string' },
  },
  required: ['score', 'reason'],
  additionalProperties: false,
} as const;

export const SIMULATED_USER_TURN_SCHEMA = {
  type: 'object',
  properties: {
    stop: { type: 'boolean' },
    reason: { type: 'string' },
    message: { type: 'string' },
  },
  required: ['stop', 'reason', 'message'],
  additionalProperties: false,
} as const;

const str = { type: 'string' } as const;
const int = { type: 'integer' } as const;

/** One red-teaming attack; a built schema adds `rewrites` with exactly the strategies written, or leaves it out. */
export const ATTACK_PROPERTIES = { source: int, attack: str } as const;
/** One QUALITY case. */
export const QUALITY_CASE_PROPERTIES = { input: str, expectedOutput: str } as const;
/** One SCENARIOS conversation for the simulated user of runs. */
export const SCENARIO_PROPERTIES = {
  source: int,
  goal: str,
  userPersona: str,
  scenario: str,
  stoppingCriterias: { type: 'array', items: str },
  maxIterations: { type: 'integer', minimum: 1, maximum: 100 },
} as const;

/**
 * Every property required, no other (what strict structured outputs ask of an object). Free of side
 * effects, so a bundle that uses none of the shapes below leaves them out.
 */
export const strictObject = /* @__NO_SIDE_EFFECTS__ */ <P extends Record<string, unknown>>(properties: P) =>
  ({
    type: 'object',
    properties,
    required: Object.keys(properties) as (keyof P & string)[],
    additionalProperties: false,
  }) as const;

/** `properties` required, `optional` allowed, no other. */
const withOptional = /* @__NO_SIDE_EFFECTS__ */ (properties: object, optional: object) =>
  ({
    type: 'object',
    properties: { ...properties, ...optional },
    required: Object.keys(properties),
    additionalProperties: false,
  }) as const;

/** RED_TEAMING: attacks, any number, each with any rewrites. */
export const RED_TEAM_ATTACKS_SHAPE = strictObject({
  attacks: {
    type: 'array',
    items: withOptional(ATTACK_PROPERTIES, { rewrites: { type: 'object', additionalProperties: str } }),
  },
});
/** QUALITY: cases under any keys. */
export const QUALITY_CASES_SHAPE = strictObject({
  cases: { type: 'object', additionalProperties: { type: 'array', items: strictObject(QUALITY_CASE_PROPERTIES) } },
});
/** SCENARIOS: conversations, any number. */
export const SCENARIO_CASES_SHAPE = strictObject({
  scenarios: { type: 'array', items: strictObject(SCENARIO_PROPERTIES) },
});

/** Every fixed answer schema sent as it is, by the `response_format` name it is sent under: `#answer-validators`. */
export const FIXED_ANSWER_SCHEMAS = {
  judge_score: JUDGE_SCORE_SCHEMA,
  simulated_user_turn: SIMULATED_USER_TURN_SCHEMA,
} as const;

/**
 * The shapes the generator's built schemas are checked on: `#generator-answer-validators`, a module
 * of their own, so only the generator's bundle holds their validators.
 */
export const GENERATOR_ANSWER_SHAPES = {
  red_team_attacks: RED_TEAM_ATTACKS_SHAPE,
  quality_cases: QUALITY_CASES_SHAPE,
  scenario_cases: SCENARIO_CASES_SHAPE,
} as const;
