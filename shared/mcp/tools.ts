/**
 * The MCP server's tools (POST /mcp): each a thin call of the use case its HTTP route calls, with
 * the caller's organization from the API key, answering a text a person (or an agent) can read and
 * the same JSON as `structuredContent`. Their arguments are checked against the routes' own rules
 * (shared/mcp/inputs.ts), so a broken one is the route's 400. Any error is a tool error
 * (`isError: true`) carrying the message the HTTP route would answer, never a transport failure.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { CallToolResult, Tool, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { toolInputValidator } from '#mcp-tool-validators';
import type { AuthContext } from '../auth/context.js';
import { NotFoundError } from '../errors.js';
import { getRunWithLabels } from '../domain/review/run-view.js';
import { failingCasesFor } from '../domain/runs/failing-cases.js';
import { compareRunsFor } from '../domain/runs/comparison.js';
import { createRunFor, listRunsFor } from '../domain/runs/runs.js';
import { listMonitorAlerts } from '../domain/monitors/alerts.js';
import { getMonitor } from '../domain/monitors/monitors.js';
import { monitorResults } from '../domain/monitors/results.js';
import { nextTask, putLabels } from '../domain/review/labelling.js';
import { toErrorResponse } from '../http/errors.js';
import { logger } from '../observability/logger.js';
import { mapStack } from '../observability/stack-map.js';
import { MAX_CASE_TEXT } from '../schemas/runs.js';
import { MCP_TOOL_INPUTS, type McpToolInput, type McpToolName } from './inputs.js';
import * as text from './text.js';

type Answer = { text: string; data: Record<string, unknown> };

/** Runs a use case and answers its text and JSON; any error becomes a tool error with the HTTP answer's message. */
async function answer(tool: string, use: () => Promise<Answer>): Promise<CallToolResult> {
  try {
    const { text, data } = await use();
    return { content: [{ type: 'text', text }], structuredContent: data };
  } catch (error) {
    const { statusCode, body } = toErrorResponse(error);
    if (statusCode >= 500) {
      const { name, message, stack } = (error ?? {}) as Error;
      logger.error('tool failed', { tool, error: { name, message, stack: mapStack(stack) } });
    }
    return {
      isError: true,
      content: [{ type: 'text', text: `${statusCode} ${body.error}: ${body.message}` }],
      structuredContent: { status: statusCode, ...body },
    };
  }
}

/** Each tool's title, description and hints; its arguments' JSON Schema is MCP_TOOL_INPUTS'. */
const TOOLS: Record<McpToolName, { title: string; description: string; annotations: ToolAnnotations }> = {
  list_runs: {
    title: 'List runs',
    description:
      'Lists evaluation runs of your organization, newest first, with each metric’s score and pass rate. ' +
      'Filter by product and status. Use it to find the run ids the other tools take ' +
      '(e.g. the latest COMPLETED run of a product as the base of compare_runs).',
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  get_run: {
    title: 'Get a run',
    description:
      'Reads one run: status and progress, and per metric the judge’s score with its 95% interval, the pass rate ' +
      '(share of scores at or above the run’s threshold), pass^k and pass@k with repetitions, and the score ' +
      'corrected with human review labels when there are enough of them. Poll it after start_run until the status ' +
      'is COMPLETED, FAILED or CANCELLED.',
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  compare_runs: {
    title: 'Compare two runs',
    description:
      'Compares a finished run with a finished base run of the same test, paired by test case: per metric the ' +
      'difference of scores, its 95% interval, the Holm-adjusted p-value and a verdict (improved, regressed, ' +
      'no_significant_change, not_enough_data), plus an overall verdict. Answers “did my change make the agent ' +
      'worse?”. Then call failing_cases on the run to see which cases broke.',
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  failing_cases: {
    title: 'Cases that did not pass',
    description:
      'Lists a run’s cases that did not pass, one per session (a case in one repetition): the case input, the ' +
      'expected output, what the agent answered turn by turn, and per metric that failed the score and the ' +
      'judge’s reason (or why the evaluation or the session failed). A case does not pass when a metric scored ' +
      `it below the run’s threshold. Texts are cut at ${MAX_CASE_TEXT} characters. Page with limit and offset.`,
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  start_run: {
    title: 'Start a run',
    description:
      'Starts an evaluation run: the service calls the agent version on every case of the test and scores each ' +
      'answer with the metrics (those linked to the test’s specification when none are given). Answers the new ' +
      'run (PENDING); follow it with get_run, then compare it with a base run (compare_runs).',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  },
  monitor_status: {
    title: 'Monitor status',
    description:
      'Reads a production monitor: its status, each bound metric’s score over the last days with its 95% ' +
      'interval, the worst metric, and the open alerts (which rule fired, the score and when). Use it to ask ' +
      '“is the agent doing well in production?”.',
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  next_review_item: {
    title: 'Next item to review',
    description:
      'Takes the oldest item of a human review queue that this reviewer has not labelled: the conversation ' +
      '(turns), the expected output, the queue’s instructions and the metrics to label. The judge’s scores are ' +
      'not shown, so the label is independent. Answer it with label_review_item; null when nothing is left.',
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  label_review_item: {
    title: 'Label a review item',
    description:
      'Records a reviewer’s labels of a review item: for each metric of the queue a score from 0 to 1 (1 = pass, ' +
      '0 = fail) and an optional reason. Replaces this reviewer’s earlier labels of those metrics. The item is ' +
      'done once enough reviewers labelled every metric. Labels feed the judge’s agreement and corrected scores.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
};

/** The tools as `tools/list` answers them: built once per container. */
const TOOL_LIST: Tool[] = (Object.keys(TOOLS) as McpToolName[]).map((name) => ({
  name,
  ...TOOLS[name],
  // A TypeBox schema is its JSON Schema; its own markers are symbols, which JSON leaves out.
  inputSchema: MCP_TOOL_INPUTS[name] as Tool['inputSchema'],
}));

type Handlers = { [N in McpToolName]: (args: McpToolInput<N>) => Promise<Answer> };

/** Lists the tools on `server` and answers their calls, each acting for `auth`'s organization. */
export function registerTools(server: Server, auth: AuthContext): void {
  const handlers = toolHandlers(auth);
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: TOOL_LIST }));
  server.setRequestHandler(CallToolRequestSchema, ({ params }) =>
    answer(params.name, async () => {
      if (!Object.hasOwn(TOOLS, params.name))
        throw new NotFoundError(`no tool ${params.name}: the tools are ${Object.keys(TOOLS).join(', ')}`);
      const name = params.name as McpToolName;
      // The request's own arguments, checked in place (defaults filled in), as a route's body is.
      const args = toolInputValidator(name)(params.arguments ?? {});
      return (handlers[name] as (args: unknown) => Promise<Answer>)(args);
    }),
  );
}

/** What each tool does with its checked arguments (defaults filled in). */
function toolHandlers(auth: AuthContext): Handlers {
  return {
    list_runs: async ({ productId, versionId, status, limit, offset }) => {
      const page = await listRunsFor(auth, {
        productIds: productId ? [productId] : undefined,
        versionIds: versionId ? [versionId] : undefined,
        statuses: status,
        sort: ['createdAt:desc'],
        limit,
        offset,
      });
      return {
        text: text.runList(page.items, page.total, offset),
        data: { runs: page.items, total: page.total, offset },
      };
    },

    get_run: async ({ runId }) => {
      const run = await getRunWithLabels(auth, runId);
      return { text: text.runDetail(run), data: { run } };
    },

    compare_runs: async ({ runId, baseRunId }) => {
      // The statistics package loads for a comparison only (as the JUnit report loads it), not at every
      // cold start: a lazy module shipped beside the bundle, which the bundle does not even parse.
      const { studentT } = await import('#student-t');
      const comparison = await compareRunsFor(auth, runId, baseRunId, studentT);
      return { text: text.comparison(comparison), data: { comparison } };
    },

    failing_cases: async ({ runId, metricId, limit, offset }) => {
      const cases = await failingCasesFor(auth, runId, { metricId, limit, offset });
      return { text: text.failingCases(cases), data: { ...cases } };
    },

    start_run: async ({ versionId, testId, metricIds, repetitions, threshold, name }) => {
      const run = await createRunFor(auth, { versionId, testId, metricIds, repetitions, threshold, name });
      return { text: text.runStarted(run), data: { run } };
    },

    monitor_status: async ({ monitorId, days }) => {
      const monitor = await getMonitor(auth, monitorId);
      const [results, alerts] = await Promise.all([
        monitorResults(auth, monitorId, days),
        listMonitorAlerts(auth, monitorId, { statuses: ['OPEN'], limit: 100 }),
      ]);
      const status = {
        monitor: { id: monitor.id, name: monitor.name, status: monitor.status, productId: monitor.productId },
        range: results.range,
        metrics: results.metrics.map((m) => ({ metricGroupId: m.metricGroupId, name: m.name, ...m.headline })),
        worstMetric: results.worstMetric,
        openAlerts: alerts.items,
      };
      return { text: text.monitorStatus(status), data: status };
    },

    next_review_item: async ({ queueId, reviewer }) => {
      const task = await nextTask(auth, queueId, reviewer);
      return { text: text.reviewTask(task, reviewer), data: { item: task ?? null } };
    },

    label_review_item: async ({ queueId, itemId, reviewer, labels }) => {
      const item = await putLabels(auth, queueId, itemId, { reviewer, labels });
      return { text: text.labelled(item, reviewer), data: { item } };
    },
  };
}
