import { JSONPath } from 'jsonpath-plus';

/** Mapping of an agent's answer by the connection's outputMapping. Pure. */

export interface MappedAnswer {
  output: string;
  /** The value every outputMapping key matched (undefined keys are left out). */
  extracted: Record<string, unknown>;
  retrievalContext?: string[];
  traces?: unknown[];
  usage?: { inputTokens?: number; outputTokens?: number };
  sessionId?: string;
}

export type MapResult = ({ ok: true } & MappedAnswer) | { ok: false; error: string };

/** The JSON body, or (when it is not JSON) the whole text as one JSON string, so `$` maps it. */
export function parseAnswerBody(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}

/** One JSONPath over the answer: the single match, an array of several, undefined for none. */
export function extractPath(json: unknown, path: string): unknown {
  if (path === '$') return json;
  try {
    // eval: false: the same rule as the connection's validation; script filters never run.
    return JSONPath({ path, json: json as object, wrap: false, eval: false });
  } catch {
    return undefined;
  }
}

export function mapAnswer(body: string, mapping: Record<string, string>): MapResult {
  const json = parseAnswerBody(body);
  const extracted: Record<string, unknown> = {};
  for (const [key, path] of Object.entries(mapping)) {
    const value = extractPath(json, path);
    if (value !== undefined) extracted[key] = value;
  }

  const outputPath = mapping.output ?? '$';
  const raw = Object.hasOwn(mapping, 'output') ? extracted.output : json;
  if (raw === undefined || raw === null) {
    return {
      ok: false,
      error: `the answer has no output: outputMapping.output (${outputPath}) matched ${raw === null ? 'null' : 'nothing'}`,
    };
  }
  const result: { ok: true } & MappedAnswer = {
    ok: true,
    output: typeof raw === 'string' ? raw : JSON.stringify(raw),
    extracted,
  };

  const retrieval = extracted.retrieval_context;
  if (retrieval !== undefined && retrieval !== null) {
    result.retrievalContext = (Array.isArray(retrieval) ? retrieval : [retrieval])
      .filter((v) => v !== null && v !== undefined)
      .map(asText);
  }
  const traces = extracted.traces;
  if (traces !== undefined && traces !== null) result.traces = Array.isArray(traces) ? traces : [traces];
  const usage = usageOf(extracted.usage);
  if (usage) result.usage = usage;
  const sessionId = extracted.session_id;
  if (typeof sessionId === 'string' && sessionId !== '') result.sessionId = sessionId;
  else if (typeof sessionId === 'number' && Number.isFinite(sessionId)) result.sessionId = String(sessionId);
  return result;
}

function asText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

const tokenCount = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= Number.MAX_SAFE_INTEGER ? v : undefined;

/** `{input_tokens, output_tokens}` (OpenAI's `prompt_tokens`/`completion_tokens` are read too). */
function usageOf(value: unknown): MappedAnswer['usage'] | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const u = value as Record<string, unknown>;
  const inputTokens = tokenCount(u.input_tokens) ?? tokenCount(u.prompt_tokens) ?? tokenCount(u.inputTokens);
  const outputTokens = tokenCount(u.output_tokens) ?? tokenCount(u.completion_tokens) ?? tokenCount(u.outputTokens);
  if (inputTokens === undefined && outputTokens === undefined) return undefined;
  return {
    ...(inputTokens !== undefined ? { inputTokens } : {}),
    ...(outputTokens !== undefined ? { outputTokens } : {}),
  };
}
