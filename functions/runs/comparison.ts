import { httpHandler, ok } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { ComparisonQuery } from '../../shared/schemas/runs.js';
import { compareRunsFor } from '../../shared/domain/runs/comparison.js';
import { studentT } from '../../shared/domain/runs/student-t.js';

export const handler = httpHandler(
  { handler: 'runs/comparison', params: IdParams, query: ComparisonQuery },
  async ({ auth, params, query }) => ok(await compareRunsFor(auth, params.id, query.baseRunId, studentT)),
);
