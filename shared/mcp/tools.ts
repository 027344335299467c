/**
 * The MCP server's tools (POST /mcp): each a thin call of the use case its HTTP route calls, with
 * the caller's organization from the API key, answering a text a person (or an agent) can read and
 * the same JSON as `structuredContent`. Input schemas are zod (the SDK lists and checks them) with
 * the bounds of the routes' schemas. Any error is a tool error (`isError: true`) carrying the
 * message the HTTP route would answer, never a transport failure.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod/v4';
import type { AuthContext } from '../auth/context.js';
import { getRunWithLabels } from '../domain/review/run-view.js';
import { failingCasesFor, MAX_CASE_TEXT, MAX_FAILING_CASES_LIMIT } from '../domain/runs/failing-cases.js';
import { compareRunsFor } from '../domain/runs/comparison.js';
import { createRunFor, listRunsFor } from '../domain/runs/runs.js';
import { listMonitorAlerts } from '../domain/monitors/alerts.js';
import { getMonitor } from '../domain/monitors/monitors.js';
import { monitorResults } from '../domain/monitors/results.js';
import { nextTask, putLabels } from '../domain/review/labelling.js';
import { toErrorResponse } from '../http/errors.js';
import { logger } from '../observability/logger.js';
import { mapStack } from '../observability/stack-map.js';
import { MAX_REPETITIONS, RUN_STATUSES } from '../schemas/runs.js';
import { MAX_QUEUE_METRICS, MAX_REVIEW_TEXT } from '../schemas/review.js';
import * as text from './text.js';

/** The routes' `Id` (shared/schemas/common.ts). */
const id = (what: string) =>
  z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9_-]+$/, 'an identifier (letters, digits, _ and -)')
    .describe(what);
const limit = (max: number, byDefault: number) =>
  z.number().int().min(1).max(max).default(byDefault).describe(`how many to answer (1–${max}, default ${byDefault})`);
const offset = z.number().int().min(0).default(0).describe('how many to skip (paging; default 0)');
/** The review routes' `Reviewer`. */
const reviewer = z
  .string()
  .min(1)
  .max(128)
  .regex(/\S/, 'not blank')
  .describe('who labels: a name the client chooses (the same name continues where it stopped)');

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

/**
 * Each tool's name, description, input schema and hints: built once per container (the schemas
 * are zod objects the SDK reads), registered on the server each request makes.
 */
const TOOLS = {
  list_runs: {
    title: 'List runs',
    description:
      'Lists evaluation runs of your organization, newest first, with each metric’s score and pass rate. ' +
      'Filter by product and status. Use it to find the run ids the other tools take ' +
      '(e.g. the latest COMPLETED run of a product as the base of compare_runs).',
    inputSchema: {
      productId: id('only runs of this product (prod_…)').optional(),
      versionId: id('only runs of this version (ver_…)').optional(),
      status: z.array(z.enum(RUN_STATUSES)).min(1).max(5).optional().describe('only runs in these statuses'),
      limit: limit(100, 20),
      offset,
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  get_run: {
    title: 'Get a run',
    description:
      'Reads one run: status and progress, and per metric the judge’s score with its 95% interval, the pass rate ' +
      '(share of scores at or above the run’s threshold), pass^k and pass@k with repetitions, and the score ' +
      'corrected with human review labels when there are enough of them. Poll it after start_run until the status ' +
      'is COMPLETED, FAILED or CANCELLED.',
    inputSchema: { runId: id('the run (run_…)') },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  compare_runs: {
    title: 'Compare two runs',
    description:
      'Compares a finished run with a finished base run of the same test, paired by test case: per metric the ' +
      'difference of scores, its 95% interval, the Holm-adjusted p-value and a verdict (improved, regressed, ' +
      'no_significant_change, not_enough_data), plus an overall verdict. Answers “did my change make the agent ' +
      'worse?”. Then call failing_cases on the run to see which cases broke.',
    inputSchema: {
      runId: id('the run to judge (run_…), e.g. the one after the change'),
      baseRunId: id('the run to compare it with (run_…), e.g. the one before the change'),
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  failing_cases: {
    title: 'Cases that did not pass',
    description:
      'Lists a run’s cases that did not pass, one per session (a case in one repetition): the case input, the ' +
      'expected output, what the agent answered turn by turn, and per metric that failed the score and the ' +
      'judge’s reason (or why the evaluation or the session failed). A case does not pass when a metric scored ' +
      `it below the run’s threshold. Texts are cut at ${MAX_CASE_TEXT} characters. Page with limit and offset.`,
    inputSchema: {
      runId: id('the run (run_…)'),
      metricId: id('only the cases this metric did not pass (met_…)').optional(),
      limit: limit(MAX_FAILING_CASES_LIMIT, 10),
      offset,
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  start_run: {
    title: 'Start a run',
    description:
      'Starts an evaluation run: the service calls the agent version on every case of the test and scores each ' +
      'answer with the metrics (those linked to the test’s specification when none are given). Answers the new ' +
      'run (PENDING); follow it with get_run, then compare it with a base run (compare_runs).',
    inputSchema: {
      versionId: id('the agent version to call (ver_…)'),
      testId: id('the test (dataset) whose cases are run (test_…)'),
      metricIds: z
        .array(id('a metric (met_…)'))
        .min(1)
        .max(50)
        .refine((ids) => new Set(ids).size === ids.length, 'must not repeat an id')
        .optional()
        .describe('the metrics that score each answer; default: those linked to the test’s specification'),
      repetitions: z
        .number()
        .int()
        .min(1)
        .max(MAX_REPETITIONS)
        .optional()
        .describe(`how many times each case runs (1–${MAX_REPETITIONS}, default 1)`),
      threshold: z
        .number()
        .min(0)
        .max(1)
        .optional()
        .describe('the score a case must reach to pass a metric (0–1, default 0.5)'),
      name: z.string().min(1).max(200).optional().describe('a name for the run (default: version · test · date)'),
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  },
  monitor_status: {
    title: 'Monitor status',
    description:
      'Reads a production monitor: its status, each bound metric’s score over the last days with its 95% ' +
      'interval, the worst metric, and the open alerts (which rule fired, the score and when). Use it to ask ' +
      '“is the agent doing well in production?”.',
    inputSchema: {
      monitorId: id('the monitor (mon_…)'),
      days: z.number().int().min(1).max(90).default(7).describe('the window in days (1–90, default 7)'),
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  next_review_item: {
    title: 'Next item to review',
    description:
      'Takes the oldest item of a human review queue that this reviewer has not labelled: the conversation ' +
      '(turns), the expected output, the queue’s instructions and the metrics to label. The judge’s scores are ' +
      'not shown, so the label is independent. Answer it with label_review_item; null when nothing is left.',
    inputSchema: { queueId: id('the review queue (rq_…)'), reviewer },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  label_review_item: {
    title: 'Label a review item',
    description:
      'Records a reviewer’s labels of a review item: for each metric of the queue a score from 0 to 1 (1 = pass, ' +
      '0 = fail) and an optional reason. Replaces this reviewer’s earlier labels of those metrics. The item is ' +
      'done once enough reviewers labelled every metric. Labels feed the judge’s agreement and corrected scores.',
    inputSchema: {
      queueId: id('the review queue (rq_…)'),
      itemId: id('the item, as next_review_item gave it'),
      reviewer,
      labels: z
        .array(
          z.object({
            metricId: id('one of the queue’s metrics (met_…)'),
            score: z.number().min(0).max(1).describe('0–1: 1 passes, 0 fails'),
            reason: z.string().max(MAX_REVIEW_TEXT).optional().describe('why, in a sentence'),
          }),
        )
        .min(1)
        .max(MAX_QUEUE_METRICS),
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
} as const;

/** Registers every tool on `server`, each acting for `auth`'s organization. */
export function registerTools(server: McpServer, auth: AuthContext): void {
  server.registerTool('list_runs', TOOLS.list_runs, ({ productId, versionId, status, limit, offset }) =>
    answer('list_runs', async () => {
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
    }),
  );

  server.registerTool('get_run', TOOLS.get_run, ({ runId }) =>
    answer('get_run', async () => {
      const run = await getRunWithLabels(auth, runId);
      return { text: text.runDetail(run), data: { run } };
    }),
  );

  server.registerTool('compare_runs', TOOLS.compare_runs, ({ runId, baseRunId }) =>
    answer('compare_runs', async () => {
      // The statistics package loads for a comparison only (as the JUnit report loads it), not at every
      // cold start: a lazy module shipped beside the bundle, which the bundle does not even parse.
      const { studentT } = await import('#student-t');
      const comparison = await compareRunsFor(auth, runId, baseRunId, studentT);
      return { text: text.comparison(comparison), data: { comparison } };
    }),
  );

  server.registerTool('failing_cases', TOOLS.failing_cases, ({ runId, metricId, limit, offset }) =>
    answer('failing_cases', async () => {
      const cases = await failingCasesFor(auth, runId, { metricId, limit, offset });
      return { text: text.failingCases(cases), data: { ...cases } };
    }),
  );

  server.registerTool('start_run', TOOLS.start_run, ({ versionId, testId, metricIds, repetitions, threshold, name }) =>
    answer('start_run', async () => {
      const run = await createRunFor(auth, { versionId, testId, metricIds, repetitions, threshold, name });
      return { text: text.runStarted(run), data: { run } };
    }),
  );

  server.registerTool('monitor_status', TOOLS.monitor_status, ({ monitorId, days }) =>
    answer('monitor_status', async () => {
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
    }),
  );

  server.registerTool('next_review_item', TOOLS.next_review_item, ({ queueId, reviewer }) =>
    answer('next_review_item', async () => {
      const task = await nextTask(auth, queueId, reviewer);
      return { text: text.reviewTask(task, reviewer), data: { item: task ?? null } };
    }),
  );

  server.registerTool('label_review_item', TOOLS.label_review_item, ({ queueId, itemId, reviewer, labels }) =>
    answer('label_review_item', async () => {
      const item = await putLabels(auth, queueId, itemId, { reviewer, labels });
      return { text: text.labelled(item, reviewer), data: { item } };
    }),
  );
}
