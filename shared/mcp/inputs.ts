/**
 * The MCP tools' arguments (POST /mcp, shared/mcp/tools.ts): JSON Schemas the server lists as each
 * tool's `inputSchema` and checks a call's arguments against, with the service's validators (ajv,
 * defaults filled in, unknown fields refused, errors worded as every route's 400). Built from the
 * routes' own schemas, so a tool takes exactly what its route takes. A function bundle checks them
 * with validators precompiled before bundling (`#mcp-tool-validators`, infra/validators.ts).
 */
import * as Type from '@sinclair/typebox';
import type { Static, TSchema } from '@sinclair/typebox';
import { Id } from '../schemas/common.js';
import { ResultsQuery } from '../schemas/monitors.js';
import { LabelsPut, NextItemBody } from '../schemas/review.js';
import { MAX_FAILING_CASES_LIMIT, RunCreate, RunListQuery } from '../schemas/runs.js';

/**
 * A route's schema with the tool's own description of the argument (the same rules). A pattern's
 * error names the rule with the description ("runId must be the id of the run (run_…)"), so each
 * reads as what the argument must be.
 */
const described = <S extends TSchema>(schema: S, description: string): S => ({ ...schema, description });

const id = (what: string) => described(Id, what);
const limit = (max: number, byDefault: number) =>
  Type.Integer({
    minimum: 1,
    maximum: max,
    default: byDefault,
    description: `how many to answer (1–${max}, default ${byDefault})`,
  });
const offset = Type.Integer({ minimum: 0, default: 0, description: 'how many to skip (paging; default 0)' });
const reviewer = described(
  NextItemBody.properties.reviewer,
  'a name the client chooses for who labels, not blank (the same name continues where it stopped)',
);
const run = RunCreate.properties;
const labels = LabelsPut.properties.labels;
const label = labels.items.properties;
const { minimum: minDays, maximum: maxDays } = ResultsQuery.properties.days;
const tool = <P extends Type.TProperties>(properties: P) => Type.Object(properties, { additionalProperties: false });

export const MCP_TOOL_INPUTS = {
  list_runs: tool({
    productId: Type.Optional(id('the id of a product (prod_…), to list only its runs')),
    versionId: Type.Optional(id('the id of a version (ver_…), to list only its runs')),
    status: Type.Optional(
      Type.Array(RunListQuery.properties.statuses.items, {
        minItems: 1,
        maxItems: 5,
        description: 'only runs in these statuses',
      }),
    ),
    limit: limit(100, 20),
    offset,
  }),
  get_run: tool({ runId: id('the id of the run (run_…)') }),
  compare_runs: tool({
    runId: id('the id of the run to judge (run_…), e.g. the one after the change'),
    baseRunId: id('the id of the run to compare it with (run_…), e.g. the one before the change'),
  }),
  failing_cases: tool({
    runId: id('the id of the run (run_…)'),
    metricId: Type.Optional(id('the id of a metric (met_…), to list only the cases it did not pass')),
    limit: limit(MAX_FAILING_CASES_LIMIT, 10),
    offset,
  }),
  start_run: tool({
    versionId: id('the id of the agent version to call (ver_…)'),
    testId: id('the id of the test (dataset) whose cases are run (test_…)'),
    metricIds: Type.Optional(
      described(
        run.metricIds,
        'the metrics that score each answer, each once; default: those linked to the test’s specification',
      ),
    ),
    repetitions: Type.Optional(run.repetitions),
    threshold: Type.Optional(run.threshold),
    name: Type.Optional(described(run.name, 'a name for the run (default: version · test · date)')),
  }),
  monitor_status: tool({
    monitorId: id('the id of the monitor (mon_…)'),
    days: Type.Integer({
      minimum: minDays,
      maximum: maxDays,
      default: 7,
      description: `the window in days (${minDays}–${maxDays}, default 7)`,
    }),
  }),
  next_review_item: tool({ queueId: id('the id of the review queue (rq_…)'), reviewer }),
  label_review_item: tool({
    queueId: id('the id of the review queue (rq_…)'),
    itemId: id('the id of the item, as next_review_item gave it'),
    reviewer,
    labels: Type.Array(
      Type.Object(
        {
          metricId: id('the id of one of the queue’s metrics (met_…)'),
          score: described(label.score, '0–1: 1 passes, 0 fails'),
          reason: Type.Optional(described(label.reason, 'why, in a sentence')),
        },
        { additionalProperties: false },
      ),
      { minItems: labels.minItems, maxItems: labels.maxItems },
    ),
  }),
} satisfies Record<string, Type.TObject>;

export type McpToolName = keyof typeof MCP_TOOL_INPUTS;
export type McpToolInput<N extends McpToolName> = Static<(typeof MCP_TOOL_INPUTS)[N]>;
