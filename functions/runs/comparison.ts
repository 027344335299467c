import { runsRoutes } from '../../shared/routes/runs.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { compareRunsFor } from '../../shared/domain/runs/comparison.js';
import { studentT } from '../../shared/domain/runs/student-t.js';

export const handler = httpHandler(runsRoutes.comparison, async ({ auth, params, query }) =>
  ok(await compareRunsFor(auth, params.id, query.baseRunId, studentT)),
);
