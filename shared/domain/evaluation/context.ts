import type { Product } from '../../schemas/products.js';
import { EVALUATION_PARAMS, type EvaluationParam } from './params.js';
import type { EndpointConnection } from '../../schemas/endpoint-connections.js';
import type { Session, Span, Turn } from '../../schemas/sessions.js';
import type { TestCase } from '../../schemas/tests.js';
import { voiceStateOf } from '../voice/figures.js';

/**
 * The one place that decides, for a session, which evaluation parameters are available and what
 * their values are. The compatibility route and the evaluator both use it, so they cannot disagree.
 */
export interface EvaluationSources {
  session: Session;
  turns: Turn[];
  spans: Span[];
  product: Product | undefined;
  testCase: TestCase | undefined;
  /** The version's CONVERSATION endpoint connection, if any. */
  conversationConnection: EndpointConnection | undefined;
}

export interface Availability {
  available: boolean;
  /** Why not, when not available. */
  reason?: string;
}

const nonEmpty = (v: unknown) =>
  typeof v === 'string' ? v.trim().length > 0 : Array.isArray(v) ? v.length > 0 : v !== null && v !== undefined;

/** Whether the evaluation must produce new output (no turn yet), and what the connection can give then. */
function newOutputAvailability(src: EvaluationSources, param: EvaluationParam, mapped: string): Availability {
  const c = src.conversationConnection;
  if (!c)
    return {
      available: false,
      reason: `${param}: the session has no turns and its version has no conversation endpoint connection to produce them`,
    };
  if (!Object.hasOwn(c.outputMapping, mapped)) {
    return {
      available: false,
      reason: `${param}: the session has no turns and the conversation endpoint connection does not map ${mapped}`,
    };
  }
  return { available: true };
}

function fromTestCase(src: EvaluationSources, param: EvaluationParam, value: unknown, what: string): Availability {
  if (!src.testCase) return { available: false, reason: `${param}: the session has no test case` };
  return nonEmpty(value) ? { available: true } : { available: false, reason: `${param}: the test case has no ${what}` };
}

function fromProduct(src: EvaluationSources, param: EvaluationParam, value: unknown, what: string): Availability {
  if (!src.product) return { available: false, reason: `${param}: the session's product is not available` };
  return nonEmpty(value) ? { available: true } : { available: false, reason: `${param}: the product has no ${what}` };
}

export function availabilityOf(src: EvaluationSources, param: EvaluationParam): Availability {
  const { turns, spans, testCase, product, session } = src;
  const hasTurns = turns.length > 0;
  switch (param) {
    case 'input':
      if (turns.some((t) => nonEmpty(t.input))) return { available: true };
      if (testCase && nonEmpty(testCase.input)) return { available: true };
      return {
        available: false,
        reason: hasTurns ? 'input: no turn has an input' : 'input: the session has no turns and no test case input',
      };
    case 'actual_output':
      if (!hasTurns) return newOutputAvailability(src, param, 'output');
      return turns.some((t) => t.output !== null)
        ? { available: true }
        : { available: false, reason: 'actual_output: no turn has an output' };
    case 'conversation_turns':
      if (!hasTurns) return newOutputAvailability(src, param, 'output');
      return { available: true };
    case 'retrieval_context':
      if (!hasTurns) return newOutputAvailability(src, param, 'retrieval_context');
      return turns.some((t) => t.retrievalContext.length > 0)
        ? { available: true }
        : { available: false, reason: 'retrieval_context: no turn has retrieval context' };
    case 'traces':
    case 'tools_used':
      if (!hasTurns) return newOutputAvailability(src, param, 'traces');
      return spans.length > 0
        ? { available: true }
        : { available: false, reason: `${param}: the session has no spans` };
    case 'context':
      if (nonEmpty(session.context) || (testCase && nonEmpty(testCase.context))) return { available: true };
      return { available: false, reason: 'context: neither the session nor its test case has a context' };
    case 'expected_output':
      return fromTestCase(src, param, testCase?.expectedOutput, 'expected output');
    case 'expected_tools':
      return fromTestCase(src, param, testCase?.expectedTools, 'expected tools');
    case 'user_persona':
      return fromTestCase(src, param, testCase?.userPersona, 'user persona');
    case 'goal':
      return fromTestCase(src, param, testCase?.goal, 'goal');
    case 'scenario':
      return fromTestCase(src, param, testCase?.scenario, 'scenario');
    case 'stopping_criterias':
      return fromTestCase(src, param, testCase?.stoppingCriterias, 'stopping criterias');
    case 'product_description':
      return fromProduct(src, param, product?.description, 'description');
    case 'product_capabilities':
      return fromProduct(src, param, product?.capabilities, 'capabilities');
    case 'product_inabilities':
      return fromProduct(src, param, product?.inabilities, 'inabilities');
    case 'product_security_boundaries':
      return fromProduct(src, param, product?.securityBoundaries, 'security boundaries');
    case 'voice': {
      // Figures still being computed count as there: the evaluator waits for them.
      const voice = voiceStateOf(session);
      if (voice.state === 'none')
        return {
          available: false,
          reason:
            session.channel === 'PHONE'
              ? 'voice: a test call is recorded until it hangs up, after its session is scored: read the run’s voice figures, or score the session with POST /evaluations once its figures are in'
              : 'voice: the session has no recording',
        };
      if (voice.state === 'missing') return { available: false, reason: `voice: ${voice.reason}` };
      return { available: true };
    }
  }
}

/** The missing parameters of a metric and why, in the metric's order. */
export function missingParams(src: EvaluationSources, params: readonly EvaluationParam[]): string[] {
  return params
    .map((p) => availabilityOf(src, p))
    .filter((a) => !a.available)
    .map((a) => a.reason!);
}

export interface SpanNode {
  id: string;
  name: string;
  type: string;
  input: unknown;
  output: unknown;
  error: string | null;
  children: SpanNode[];
}

/** The span tree (parents by parentTraceId), ordered by start time. */
export function spanTree(spans: Span[]): SpanNode[] {
  const nodes = new Map<string, SpanNode>();
  const sorted = [...spans].sort((a, b) =>
    String(a.startTime ?? a.createdAt).localeCompare(String(b.startTime ?? b.createdAt)),
  );
  for (const s of sorted)
    nodes.set(s.id, {
      id: s.id,
      name: s.name,
      type: s.type,
      input: s.inputData,
      output: s.outputData,
      error: s.error,
      children: [],
    });
  const roots: SpanNode[] = [];
  for (const s of sorted) {
    const node = nodes.get(s.id)!;
    const parent = s.parentTraceId ? nodes.get(s.parentTraceId) : undefined;
    if (parent) parent.children.push(node);
    else roots.push(node);
  }
  return roots;
}

/** A session's voice figures without their segments (a metric reads figures, a judge needs no timeline). */
function voiceFigures(session: Session): Record<string, unknown> | undefined {
  if (!session.voice) return undefined;
  const { segments: _, ...figures } = session.voice;
  return figures;
}

/**
 * The values of every parameter for one evaluation: of one turn when `turnId` is given, else of
 * the whole session (inputs and outputs joined in turn order).
 */
export function parameterValues(
  src: EvaluationSources,
  turnId?: string | null,
): Partial<Record<EvaluationParam, unknown>> {
  const turns = turnId ? src.turns.filter((t) => t.id === turnId) : src.turns;
  const spans = turnId ? src.spans.filter((s) => s.inferenceResultId === turnId) : src.spans;
  const tc = src.testCase;
  const join = (xs: (string | null)[]) => xs.filter((x): x is string => x !== null && x !== '').join('\n\n');
  const contextValue = src.session.context ?? (tc?.context ? { value: tc.context } : null);
  const values: Partial<Record<EvaluationParam, unknown>> = {
    input: turns.length
      ? join(turns.map((t) => t.input))
      : typeof tc?.input === 'string'
        ? tc.input
        : (tc?.input ?? undefined),
    actual_output: turns.length && turns.some((t) => t.output !== null) ? join(turns.map((t) => t.output)) : undefined,
    expected_output: tc?.expectedOutput ?? undefined,
    context: contextValue
      ? typeof contextValue.value === 'string' && Object.keys(contextValue).length === 1
        ? contextValue.value
        : contextValue
      : undefined,
    retrieval_context: turns.flatMap((t) => t.retrievalContext),
    traces: spanTree(spans),
    tools_used: spans.filter((s) => s.type === 'TOOL').map((s) => s.name),
    expected_tools: tc?.expectedTools,
    product_description: src.product?.description,
    product_capabilities: src.product?.capabilities,
    product_inabilities: src.product?.inabilities,
    product_security_boundaries: src.product?.securityBoundaries,
    user_persona: tc?.userPersona ?? undefined,
    goal: tc?.goal ?? undefined,
    scenario: tc?.scenario ?? undefined,
    stopping_criterias: tc?.stoppingCriterias,
    conversation_turns: src.turns.map((t) => ({ index: t.index, input: t.input, output: t.output })),
    voice: voiceFigures(src.session),
  };
  return Object.fromEntries(EVALUATION_PARAMS.filter((p) => values[p] !== undefined).map((p) => [p, values[p]]));
}
