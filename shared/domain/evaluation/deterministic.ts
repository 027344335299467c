/**
 * The deterministic predefined metrics, as pure functions of the evaluation
 * parameter values. Each gives a score in [0, 1] and a reason that says what matched or was
 * missing, and where (personal data and secret-looking values masked, at most ~500 characters);
 * or throws MetricInputError (the evaluation then FAILS with that message).
 */
import { isJsonFinding, jsonFieldFinding } from './deterministic/json.js';
import { noPiiFinding, nonEmptyFinding } from './deterministic/output.js';
import { bleuFinding, rougeFinding } from './deterministic/overlap.js';
import { type Finding, MetricInputError, type MetricResult } from './deterministic/result.js';
import { iouFinding, spatialMatchFinding } from './deterministic/spatial.js';
import { textMatchFinding, textSimilarityFinding } from './deterministic/text.js';
import { toolFinding } from './deterministic/tools.js';
import { voiceFinding } from './deterministic/voice.js';
import { capReason } from './reason-text.js';

/** Each metric's own functions, from where they live (callers and tests use them one by one). */
export { isJson, jsonFieldMatch } from './deterministic/json.js';
export { hasCardNumber, noPii, nonEmptyOutput } from './deterministic/output.js';
export { bleu, rougeL } from './deterministic/overlap.js';
export { MetricInputError, MetricSkippedError } from './deterministic/result.js';
export { iou, spatialMatch } from './deterministic/spatial.js';
export { levenshtein, textMatch, textSimilarity } from './deterministic/text.js';
export { toolCorrectness } from './deterministic/tools.js';
export { luhnValid } from './reason-text.js';

const asText = (v: unknown, name: string): string => {
  if (typeof v === 'string') return v;
  if (v === undefined || v === null) throw new MetricInputError(`${name} is missing`);
  return JSON.stringify(v);
};
const asList = (v: unknown, name: string): string[] => {
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v;
  throw new MetricInputError(`${name} must be a list of names`);
};

type Params = Record<string, unknown>;
const output = (p: Params) => asText(p.actual_output, 'actual_output');
const expectedOutput = (p: Params) => asText(p.expected_output, 'expected_output');

const FINDERS: Record<string, (p: Params) => Finding> = {
  text_similarity: (p) => textSimilarityFinding(output(p), expectedOutput(p)),
  text_match: (p) => textMatchFinding(output(p), expectedOutput(p)),
  json_field_match: (p) => jsonFieldFinding(output(p), expectedOutput(p), false),
  json_field_match_normalized: (p) => jsonFieldFinding(output(p), expectedOutput(p), true),
  iou: (p) => iouFinding(output(p), expectedOutput(p)),
  spatial_match: (p) => spatialMatchFinding(output(p), expectedOutput(p)),
  tool_correctness: (p) =>
    toolFinding(asList(p.tools_used ?? [], 'tools_used'), asList(p.expected_tools, 'expected_tools')),
  bleu: (p) => bleuFinding(output(p), expectedOutput(p)),
  rouge: (p) => rougeFinding(output(p), expectedOutput(p)),
  is_json: (p) => isJsonFinding(output(p)),
  non_empty_output: (p) => nonEmptyFinding(asText(p.actual_output ?? '', 'actual_output')),
  no_pii: (p) => noPiiFinding(asText(p.actual_output ?? '', 'actual_output')),
  voice_latency: (p) => voiceFinding('voice_latency', p.voice),
  voice_no_interruptions: (p) => voiceFinding('voice_no_interruptions', p.voice),
  voice_dead_air: (p) => voiceFinding('voice_dead_air', p.voice),
};

/** Each deterministic predefined metric, by name: the score and a reason starting with the name. */
export const DETERMINISTIC_METRICS: Record<string, (p: Params) => MetricResult> = Object.fromEntries(
  Object.entries(FINDERS).map(([name, find]) => [
    name,
    (p: Params) => {
      const f = find(p);
      return { score: f.score, reason: capReason(`${name}: ${f.detail}`) };
    },
  ]),
);
