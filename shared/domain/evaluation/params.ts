/** The complete list of evaluation parameters, in snake_case as the contract names them. */
export const EVALUATION_PARAMS = [
  'input',
  'actual_output',
  'expected_output',
  'context',
  'retrieval_context',
  'traces',
  'expected_tools',
  'tools_used',
  'product_description',
  'product_capabilities',
  'product_inabilities',
  'product_security_boundaries',
  'user_persona',
  'goal',
  'scenario',
  'stopping_criterias',
  'conversation_turns',
  /** The call's voice figures, from the session's recording (docs/voice.md). */
  'voice',
] as const;
export type EvaluationParam = (typeof EVALUATION_PARAMS)[number];

/** Parameters only a test case can supply: a metric needing one cannot watch production traffic. */
export const TEST_CASE_ONLY_PARAMS: readonly EvaluationParam[] = [
  'expected_output',
  'expected_tools',
  'user_persona',
  'goal',
  'scenario',
  'stopping_criterias',
];

export const METRIC_SOURCES = [
  'SELF_HOSTED',
  'FULL_PROMPT',
  'PARTIAL_PROMPT',
  'HUMAN_EVALUATION',
  'GEVAL',
  'DEEPEVAL',
  'DETERMINISTIC',
] as const;
export type MetricSource = (typeof METRIC_SOURCES)[number];

/** The types of a check an organization writes. */
export const CHECK_TYPES = [
  'contains',
  'not_contains',
  'equals',
  'starts_with',
  'ends_with',
  'contains_any',
  'contains_all',
  'regex',
  'is_json',
  'json_schema',
  'length',
] as const;
export type CheckType = (typeof CHECK_TYPES)[number];

/** The parameters a check can read; its metric's evaluationParams is exactly its target. */
export const CHECK_TARGETS = [
  'actual_output',
  'input',
  'expected_output',
  'retrieval_context',
] as const satisfies readonly EvaluationParam[];
export type CheckTarget = (typeof CHECK_TARGETS)[number];

/** Sources scored by an LLM judge. */
export const AI_JUDGED_SOURCES: readonly MetricSource[] = ['PARTIAL_PROMPT', 'FULL_PROMPT', 'GEVAL', 'DEEPEVAL'];

export const TEST_TYPES = ['QUALITY', 'RED_TEAMING', 'SCENARIOS'] as const;
export type TestType = (typeof TEST_TYPES)[number];

export const QUALITY_VARIANTS = [
  'rag',
  'entity_extraction',
  'summarization',
  'classification',
  'translation',
  'correction',
  'other',
] as const;
export const RED_TEAMING_VARIANTS = [
  'data_leakage',
  'financial_attacks',
  'illegal_activities',
  'misuse',
  'toxicity',
  'custom',
] as const;

/** The variants a test type takes (SCENARIOS takes none). */
export function variantsOf(type: TestType): readonly string[] {
  if (type === 'QUALITY') return QUALITY_VARIANTS;
  if (type === 'RED_TEAMING') return RED_TEAMING_VARIANTS;
  return [];
}
