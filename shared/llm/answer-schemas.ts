/**
 * The JSON Schemas of the LLM answers whose shape never changes (the judge's score, the simulated
 * user's turn): one source for the `response_format` the client sends and the validator that checks
 * the answer. Function bundles carry their validators precompiled (infra/validators.ts writes them
 * before bundling), so no schema compiler is loaded to check them; everywhere else they are
 * compiled on first use like any other answer schema (./answer.ts).
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

/** Every fixed answer schema, by the `response_format` name it is sent under. */
export const FIXED_ANSWER_SCHEMAS = {
  judge_score: JUDGE_SCORE_SCHEMA,
  simulated_user_turn: SIMULATED_USER_TURN_SCHEMA,
} as const;
